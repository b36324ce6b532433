-- A person is shown by the name most of their records use, or by the one
-- an operator set: as SQLite's schema 15 (schema/0015_people_names.sql
-- says what each column holds).
ALTER TABLE people ADD COLUMN name_set SMALLINT NOT NULL DEFAULT 0;
UPDATE people SET name = COALESCE((SELECT s.name FROM players s WHERE s.person = people.id
    ORDER BY s.games DESC, s.id LIMIT 1), name);
CREATE INDEX people_name ON people(name);

INSERT INTO schema_version VALUES (5);
