-- Keil archive, schema version 1.
--
-- SQLite is the source of truth: the tantivy text index and the position
-- index are derived from these tables and can be rebuilt from them.
-- Applied by keil-archive when an archive is opened (rusqlite_migration,
-- tracked in PRAGMA user_version); never edit a released migration, add a
-- new numbered file instead.

-- One row per distinct player name (as written in PB/PW).
CREATE TABLE players (
    id      INTEGER PRIMARY KEY,
    -- The name as written in the record.
    name    TEXT NOT NULL UNIQUE,
    -- The name folded for search: ASCII transliteration, lower case, single
    -- spaces ("Bolaños" -> "bolanos").
    folded  TEXT NOT NULL,
    -- Number of stored games this player played (either colour).
    games   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX players_folded ON players(folded);

-- Every word of every folded name, for prefix search on any word
-- ("bol" finds "Ana Bolaños").
CREATE TABLE player_words (
    word       TEXT NOT NULL,
    player_id  INTEGER NOT NULL REFERENCES players(id),
    PRIMARY KEY (word, player_id)
) WITHOUT ROWID;

-- One import run (CLI, server or library); finished_at stays NULL when the
-- run was interrupted.
CREATE TABLE imports (
    id           INTEGER PRIMARY KEY,
    started_at   TEXT NOT NULL,
    finished_at  TEXT,
    sources      TEXT NOT NULL,
    games_read   INTEGER NOT NULL DEFAULT 0,
    imported     INTEGER NOT NULL DEFAULT 0,
    duplicates   INTEGER NOT NULL DEFAULT 0,
    invalid      INTEGER NOT NULL DEFAULT 0
);

-- Games refused by an import, with the reason.
CREATE TABLE import_problems (
    id          INTEGER PRIMARY KEY,
    import_id   INTEGER NOT NULL REFERENCES imports(id),
    -- File path or "-" for standard input.
    source      TEXT NOT NULL,
    -- 0-based index of the game tree in its file.
    game_index  INTEGER NOT NULL,
    -- Reason code: a verdict code (`occupied`, `repetition`, ...) or
    -- `malformed` for a record that could not be read.
    reason      TEXT NOT NULL,
    message     TEXT NOT NULL,
    -- 1-based ply of the first illegal move, when there is one.
    ply         INTEGER
);
CREATE INDEX import_problems_import ON import_problems(import_id);

-- Valid games. `record` is the normalised SGF text compressed with zstd;
-- `moves` the main line in a compact form (see keil-archive `moves.rs`).
CREATE TABLE games (
    id          INTEGER PRIMARY KEY,
    -- First 16 bytes of the BLAKE3 hash of the normalised record text.
    hash        BLOB NOT NULL UNIQUE,
    import_id   INTEGER REFERENCES imports(id),
    black_id    INTEGER REFERENCES players(id),
    white_id    INTEGER REFERENCES players(id),
    black_rank  TEXT,
    white_rank  TEXT,
    -- DT as written, and its first day as YYYY-MM-DD ('' when unknown).
    date_raw    TEXT,
    date        TEXT NOT NULL DEFAULT '',
    event       TEXT,
    round       TEXT,
    place       TEXT,
    game_name   TEXT,
    -- RE as normalised, e.g. 'B+3.5', 'W+R', '0'.
    result      TEXT,
    -- 0 Black, 1 White, NULL none (draw, unfinished, unknown).
    winner      INTEGER,
    -- Score difference in half-points when counted.
    margin      INTEGER,
    -- complete, resigned, time, forfeit, unfinished.
    status      TEXT NOT NULL,
    size        INTEGER NOT NULL,
    -- Canonical RU value, and komi in half-points.
    ruleset     TEXT NOT NULL,
    komi        INTEGER NOT NULL,
    plies       INTEGER NOT NULL,
    -- Non-empty starting position (AB/AW) in position notation, else NULL.
    setup       TEXT,
    moves       BLOB NOT NULL,
    record      BLOB NOT NULL
);
CREATE INDEX games_date ON games(date, id);
CREATE INDEX games_event ON games(event COLLATE NOCASE);
CREATE INDEX games_black ON games(black_id, date, id);
CREATE INDEX games_white ON games(white_id, date, id);

-- The players of each game, one row per colour, ordered for a player's
-- games by date.
CREATE TABLE game_players (
    player_id    INTEGER NOT NULL REFERENCES players(id),
    date         TEXT NOT NULL,
    game_id      INTEGER NOT NULL REFERENCES games(id),
    -- 0 Black, 1 White.
    color        INTEGER NOT NULL,
    opponent_id  INTEGER REFERENCES players(id),
    -- 1 won, 0 lost, NULL neither (draw, unfinished).
    won          INTEGER,
    PRIMARY KEY (player_id, date, game_id, color)
) WITHOUT ROWID;
CREATE INDEX game_players_game ON game_players(game_id);

-- The position index (filled by keil-archive `positions.rs`).
CREATE TABLE position_segments (id INTEGER PRIMARY KEY, games INTEGER NOT NULL, postings INTEGER NOT NULL, data BLOB NOT NULL);
