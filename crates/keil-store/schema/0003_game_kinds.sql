-- Keil archive, schema version 3: games of several kinds (Keil, Go, later
-- Kaomi), import problems with their line:column, position index keys of
-- version 2.

-- The game a record is of: 'keil', 'go' (later 'kaomi'). With `size`, the
-- board: Keil's hexagon side, Go's square side. Every game stored before
-- is a Keil game.
ALTER TABLE games ADD COLUMN kind TEXT NOT NULL DEFAULT 'keil';
-- Game lists filtered by kind, or by kind and size, in date order (the
-- keyset of `Games::list`): each filter reads an index range in order.
CREATE INDEX games_kind_date ON games(kind, date, id);
CREATE INDEX games_kind_size_date ON games(kind, size, date, id);

-- Where in its file a refused game is at fault (1-based; NULL when the
-- fault has no place, e.g. an unreadable file).
ALTER TABLE import_problems ADD COLUMN line INTEGER;
ALTER TABLE import_problems ADD COLUMN col INTEGER;

-- The version of the index keys a position segment was written with.
-- Version 2 keys encode the game kind and the board size, take the
-- canonical orientation from the stones alone and keep the button flag in
-- the lowest bit; segments of version 1 (every segment written before this
-- migration) are rebuilt from the games when the archive is opened. The
-- index finds old segments without reading their blobs.
ALTER TABLE position_segments ADD COLUMN keys INTEGER NOT NULL DEFAULT 1;
CREATE INDEX position_segments_keys ON position_segments (keys);
