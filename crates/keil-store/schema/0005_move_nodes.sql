-- Keil archive, schema version 5: the SGF node of each move.
--
-- Kombilo's time line, and the pattern search's, is the SGF node of the
-- main line (the root is node 0; setup and move-less nodes count). Most
-- records have one move per node after a move-less root, so move i
-- (0-based) is at node i + 1: then `move_nodes` is NULL. Otherwise it
-- holds each move's node as two bytes, little endian (keil-archive
-- `moves.rs`). Games stored before this version read as NULL.
ALTER TABLE games ADD COLUMN move_nodes BLOB;
