-- Keil archive, schema version 11: removal of games by an operator, and
-- blocks of derived indexes.
--
-- One row per removed game: the removal log (who asked, when, why) and the
-- sequence the derived indexes catch up on (`seq`: every index records the
-- last removal it applied, as it records the last game id it added). The
-- game's rows (games, game_players, game_sources) are deleted in the same
-- transaction; its postings in position segments stay until a merge drops
-- them, masked meanwhile (the game has no summary).
CREATE TABLE removals (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    -- The removed game's id; ids are never given again (the import
    -- assigns ids above every removed one).
    game_id     INTEGER NOT NULL,
    -- RFC 3339 UTC time of the removal.
    removed_at  TEXT NOT NULL,
    -- Who asked: the server token's name, or the local user of `keil remove`.
    removed_by  TEXT NOT NULL,
    reason      TEXT NOT NULL DEFAULT '',
    -- The game as a person would name it ("Black vs White, date, event").
    what        TEXT NOT NULL,
    -- The game's signature (games.signature), so that another record of the
    -- same game is refused as well.
    signature   BLOB
);
CREATE INDEX removals_game ON removals(game_id);
CREATE INDEX removals_signature ON removals(signature) WHERE signature IS NOT NULL;

-- Every record identity (games.hash, game_sources.hash) of a removed game:
-- an import of one of them is refused as `removed`.
CREATE TABLE removed_records (
    hash        BLOB PRIMARY KEY,
    removal     INTEGER NOT NULL REFERENCES removals(seq)
) WITHOUT ROWID;

-- Blocks of derived indexes: bounded, immutable pieces a node start reads
-- instead of replaying every game. `kind` names the derived index
-- (`patterns`: the pattern index's games, keil-archive `patterns/block.rs`),
-- `version` its block format: a block of another version is ignored (its
-- games are replayed) until `keil reindex` writes it again. One block per
-- import batch holds that batch's games (ids `first_game..=last_game`);
-- small ones are merged. Removed games stay in their block, masked, until
-- a merge or a reindex drops them.
CREATE TABLE derived_blocks (
    id          INTEGER PRIMARY KEY,
    kind        TEXT NOT NULL,
    first_game  INTEGER NOT NULL,
    last_game   INTEGER NOT NULL,
    games       INTEGER NOT NULL,
    version     INTEGER NOT NULL,
    data        BLOB NOT NULL
);
CREATE UNIQUE INDEX derived_blocks_range ON derived_blocks(kind, first_game);
