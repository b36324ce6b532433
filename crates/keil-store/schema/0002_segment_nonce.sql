-- The nonce of each position segment (also written in the segment's
-- header), so that a search learns which of its in-memory segments are
-- current from one small query instead of opening every segment's blob.
-- Filled in from the headers when an archive is opened. The column comes
-- after the segment's blob in the row, so a covering index serves the
-- query without reading the blobs' overflow pages.
ALTER TABLE position_segments ADD COLUMN nonce INTEGER;
CREATE INDEX position_segments_nonce ON position_segments (id, nonce);
