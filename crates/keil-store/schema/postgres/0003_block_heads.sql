-- A derived block may say how many of its first bytes can be read alone
-- (`head_bytes`, as SQLite's schema 13): a pattern block of version 3 holds
-- its games in its first zstd frame and their region entries in the second,
-- and a node's first load, which leaves the region index for later, reads
-- the first frame alone with `substring` (the column is stored out of line
-- and uncompressed, so only the head's TOAST chunks are read). NULL: the
-- block is read whole.
ALTER TABLE derived_blocks ADD COLUMN head_bytes BIGINT;

INSERT INTO schema_version VALUES (3);
