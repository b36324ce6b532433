-- Keil archive, schema version 8: ranks as ordered values, komi as meant
-- (go-rules.md, "Metadata").
--
-- `black_rank_ord` / `white_rank_ord`: the rank of BR / WR (kept as written
-- in `black_rank` / `white_rank`) as one ordered integer, NULL when the
-- text is no rank: 30k = 1 … 1k = 30, 1d = 31 … 9d = 39, 1p = 41 … 9p = 49
-- (keil-record `Rank::ordinal`).
ALTER TABLE games ADD COLUMN black_rank_ord INTEGER;
ALTER TABLE games ADD COLUMN white_rank_ord INTEGER;
-- `keil_rank` is keil-record's `Rank::parse` (registered by keil-archive
-- on the connection that migrates).
UPDATE games
   SET black_rank_ord = keil_rank(black_rank),
       white_rank_ord = keil_rank(white_rank)
 WHERE black_rank IS NOT NULL OR white_rank IS NOT NULL;
-- Go komi as its writer meant it (Fox's KM[750] is 7.5): `keil_go_komi`
-- reads the stored record's KM with keil-record's `read_komi`, in
-- half-points (the column's value when the record has no readable KM).
UPDATE games SET komi = keil_go_komi(record, komi) WHERE kind = 'go';
