-- Keil archive, schema version 16: collections (docs/collections.md,
-- "Collections"). Every stored game belongs to the collection its import
-- named (`keil import --collection NAME`; by default the folder or
-- archive named on the command line; an upload: its token's name), so
-- that lists, the explorer and the pattern search can be filtered and
-- counted by where games came from (a KGS set, Tygem, a professional
-- collection).
--
-- `games.collection_id` is NULL only for games stored before this
-- version until the open-time upgrade 'collections 16' labels them from
-- their import's sources (keil-archive `import/collection.rs`).
CREATE TABLE collections (
    id    INTEGER PRIMARY KEY,
    name  TEXT NOT NULL UNIQUE
);
ALTER TABLE games ADD COLUMN collection_id INTEGER REFERENCES collections(id);
-- A collection's games in date order: a list by collection reads a range.
CREATE INDEX games_collection ON games(collection_id, date, id);
-- The facts' covering index (schema 12) with the date as written (hit
-- lists show a date as precise as the record gives it) and the collection.
DROP INDEX games_facts;
CREATE INDEX games_facts ON games(id, date, winner, black_id, white_id, komi, handicap,
    black_rank_ord, white_rank_ord, event, result, black_rank, white_rank, date_raw,
    collection_id);
INSERT INTO upgrades (name) VALUES ('collections 16');
