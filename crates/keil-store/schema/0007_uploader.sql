-- Keil archive, schema version 6: who uploaded.
--
-- The name of the server token whose upload made the import run (the
-- token file's `name token` lines; never the token itself). NULL for a
-- local `keil import` and for imports before this version. A game's
-- uploader is its import's (`games.import_id`).
ALTER TABLE imports ADD COLUMN uploader TEXT;
