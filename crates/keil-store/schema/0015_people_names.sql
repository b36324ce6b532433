-- Keil archive, schema version 15: a person is shown by the name most of
-- their records use, or by the one an operator set (go-rules.md,
-- "Metadata"; docs/collections.md, "Players").
--
-- `people.name` is the name shown: unless `name_set` is 1, the spelling
-- (`players.name`) of the person with the most stored games (ties: the
-- first stored), kept so by imports, removals and aliases
-- (keil-store `people::names::refresh`); with `name_set` 1, the name the
-- operator gave (`keil players name`), which nothing else changes.
ALTER TABLE people ADD COLUMN name_set INTEGER NOT NULL DEFAULT 0;
UPDATE people SET name = COALESCE((SELECT s.name FROM players s WHERE s.person = people.id
    ORDER BY s.games DESC, s.id LIMIT 1), name);
-- A person by the name shown (`/players/{name}` of a name no record
-- wrote, the operator's).
CREATE INDEX people_name ON people(name);
