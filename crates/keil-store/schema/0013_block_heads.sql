-- Keil archive, schema version 13: a derived block may say how many of its
-- first bytes can be read alone (`head_bytes`): a pattern block of version 3
-- holds its games in its first zstd frame and their region entries in the
-- second, and a node's first load, which leaves the region index for later,
-- reads the first frame alone (a quarter of a 19×19 block's bytes). NULL:
-- the block is read whole (blocks written before, other kinds).
ALTER TABLE derived_blocks ADD COLUMN head_bytes INTEGER;
