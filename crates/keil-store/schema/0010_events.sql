-- Keil archive, schema version 10: the events' vocabulary, so that the
-- event filter matches a part of an event's name ("UEC" finds
-- "第10期UEC杯世界电脑围棋赛") by reading the distinct events, not every
-- game.
--
-- One row per event as written (`games.event`), with its folded form
-- (keil-archive `fold`: ASCII transliteration, lower case, single spaces)
-- and its number of games. The import adds to it.
CREATE TABLE events (
    name    TEXT PRIMARY KEY,
    folded  TEXT NOT NULL,
    games   INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
-- `keil_fold` is keil-archive's `fold` (registered on the connection that
-- migrates).
INSERT INTO events (name, folded, games)
    SELECT event, keil_fold(event), COUNT(*) FROM games
     WHERE event IS NOT NULL AND event <> '' GROUP BY event;
