-- Keil archive, schema version 14: a merge is a proof, refused records are
-- kept (go-rules.md, "Metadata").
--
-- Where a game's own record came from, as `game_sources` says it of the
-- other records: the file or archive member and the index of its game tree
-- there (0-based). NULL for games stored before this version.
ALTER TABLE games ADD COLUMN source TEXT;
ALTER TABLE games ADD COLUMN game_index INTEGER;

-- How another source's record is its game (keil-archive `merges.rs`):
-- `merge_kind` is 'identical', 'symmetric' (the same moves under one of the
-- board's symmetries), 'prefix' (the start of the game's moves),
-- 'transposed' (the same moves of each colour in another order) or
-- 'discrepancy' (the same players and date, at most 5 moves differ); NULL
-- for a record merged before this version by its signature alone, which
-- the archive checks again when it opens (the `upgrades` row 'merges 14').
-- `transform` is the symmetry (0-7, keil-rules' square symmetry index)
-- that maps the record's points onto the game's; `differs` the 1-based
-- plies where their moves differ, comma-separated (NULL: none).
ALTER TABLE game_sources ADD COLUMN merge_kind TEXT;
ALTER TABLE game_sources ADD COLUMN transform INTEGER NOT NULL DEFAULT 0;
ALTER TABLE game_sources ADD COLUMN differs TEXT;

-- Games that resemble each other without being one game: `kind` 'similar'
-- (the same moves, under `transform`, with game information that says
-- another game: a replay, a relay). One row per pair, `game_id` < `other_id`;
-- both rows of a removed game go with it.
CREATE TABLE game_links (
    game_id    INTEGER NOT NULL,
    other_id   INTEGER NOT NULL,
    kind       TEXT NOT NULL,
    transform  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, other_id)
);
CREATE INDEX game_links_other ON game_links(other_id);

-- A refused record kept with its verdict: the game tree's text as it came
-- (zstd), its BLAKE3 hash (first 16 bytes, so that the same refused record
-- is kept once), the game kind and board size when the record says them,
-- and the illegal move as written. NULL `record`: nothing was kept (a
-- source that is not a record, an upload by a token that is not an
-- operator's).
ALTER TABLE import_problems ADD COLUMN record BLOB;
ALTER TABLE import_problems ADD COLUMN hash BLOB;
ALTER TABLE import_problems ADD COLUMN kind TEXT;
ALTER TABLE import_problems ADD COLUMN size INTEGER;
ALTER TABLE import_problems ADD COLUMN mv TEXT;
CREATE INDEX import_problems_hash ON import_problems(hash) WHERE hash IS NOT NULL;
CREATE INDEX import_problems_reason ON import_problems(reason, id);

-- Upgrades that the archive's code carries out when it opens (what SQL
-- alone cannot do), each named once: `done_at` (RFC 3339) once done.
-- 'merges 14': every game's signature computed again (the same for the 8
-- orientations of a game, `moves::signature`), and every record merged
-- before this version checked by the moves; one that is not its game's is
-- stored as a game of its own again.
CREATE TABLE upgrades (
    name     TEXT PRIMARY KEY,
    done_at  TEXT
);
INSERT INTO upgrades (name) VALUES ('merges 14');
