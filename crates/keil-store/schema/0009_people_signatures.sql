-- Keil archive, schema version 9: one identity per person, and duplicates
-- across sources (docs/collections.md, "Players" and "Duplicates").
--
-- `players` keeps one row per spelling (the name as written in PB/PW);
-- `people` holds one row per person. A spelling belongs to the person whose
-- `key` is the spelling's person key (keil-archive `person_key`: the name
-- folded for case, spacing, punctuation and Latin accents, "Ke Jie" and
-- "KeJie" are `kejie`), after the operator's aliases (`player_aliases`:
-- a person key to the key of the person it names).
CREATE TABLE people (
    id     INTEGER PRIMARY KEY,
    -- The name shown: the person's first spelling, or the name an alias
    -- gave.
    name   TEXT NOT NULL,
    -- The person key that spellings resolve to (never an alias's own key).
    key    TEXT NOT NULL UNIQUE,
    -- Stored games the person played (a game against oneself once).
    games  INTEGER NOT NULL DEFAULT 0
);

-- The operator's aliases (`keil players alias`, `keil import --aliases`):
-- a person key and the key it resolves to. Targets are never aliases
-- themselves (adding one re-points the aliases that targeted it).
CREATE TABLE player_aliases (
    key     TEXT PRIMARY KEY,
    target  TEXT NOT NULL
) WITHOUT ROWID;

ALTER TABLE players ADD COLUMN person INTEGER REFERENCES people(id);
-- `keil_person_key` is keil-archive's `person_key` (registered on the
-- connection that migrates). A person's id is its first spelling's id, so
-- that player pages keep their addresses.
INSERT INTO people (id, name, key)
    SELECT MIN(id), name, keil_person_key(name) FROM players GROUP BY keil_person_key(name);
UPDATE players SET person = (SELECT id FROM people WHERE people.key = keil_person_key(players.name));
CREATE INDEX players_person ON players(person);

-- The players of each game, now by person: one row per colour, ordered
-- for a person's games by date. A game against oneself (both colours the
-- same person) has two rows and is neither won nor lost (`won` NULL).
CREATE TABLE game_people (
    player_id    INTEGER NOT NULL REFERENCES people(id),
    date         TEXT NOT NULL,
    game_id      INTEGER NOT NULL REFERENCES games(id),
    -- 0 Black, 1 White.
    color        INTEGER NOT NULL,
    opponent_id  INTEGER REFERENCES people(id),
    -- 1 won, 0 lost, NULL neither (draw, unfinished, against oneself).
    won          INTEGER,
    PRIMARY KEY (player_id, date, game_id, color)
) WITHOUT ROWID;
INSERT INTO game_people
    SELECT me.person, gp.date, gp.game_id, gp.color, opp.person,
           CASE WHEN me.person = opp.person THEN NULL ELSE gp.won END
      FROM game_players gp JOIN players me ON me.id = gp.player_id
      LEFT JOIN players opp ON opp.id = gp.opponent_id;
DROP TABLE game_players;
ALTER TABLE game_people RENAME TO game_players;
CREATE INDEX game_players_game ON game_players(game_id);
UPDATE people SET games = (SELECT COUNT(DISTINCT game_id) FROM game_players WHERE player_id = people.id);

INSERT INTO counts SELECT 'people', COUNT(*) FROM people;
CREATE TRIGGER counts_people_insert AFTER INSERT ON people BEGIN
    UPDATE counts SET n = n + 1 WHERE name = 'people';
END;
CREATE TRIGGER counts_people_delete AFTER DELETE ON people BEGIN
    UPDATE counts SET n = n - 1 WHERE name = 'people';
END;

-- The game signature (keil-archive `moves::signature`): for a game of at
-- least 71 plies the Dyer signature Kombilo uses (the points of moves 20,
-- 31, 40, 51, 60 and 71, the board and the move count), for 20 to 70
-- plies every move; NULL under 20 plies. 16 bytes of a BLAKE3 hash.
ALTER TABLE games ADD COLUMN signature BLOB;
UPDATE games SET signature = keil_signature(kind, size, plies, moves);
CREATE INDEX games_signature ON games(signature) WHERE signature IS NOT NULL;

-- The other sources' records of a stored game: a record whose signature
-- equals a stored game's (and whose text differs) is kept here, linked to
-- that game, instead of stored as a second game (`keil import --duplicates
-- signature`, the default).
CREATE TABLE game_sources (
    id         INTEGER PRIMARY KEY,
    game_id    INTEGER NOT NULL REFERENCES games(id),
    -- As `games.hash`: the record's identity.
    hash       BLOB NOT NULL UNIQUE,
    import_id  INTEGER REFERENCES imports(id),
    -- The file or archive member the record came from, and the index of
    -- its game tree there (0-based).
    source     TEXT NOT NULL,
    game_index INTEGER NOT NULL,
    -- The record text, normalised and compressed as `games.record`.
    record     BLOB NOT NULL
);
CREATE INDEX game_sources_game ON game_sources(game_id);
ALTER TABLE imports ADD COLUMN merged INTEGER NOT NULL DEFAULT 0;
