-- Keil archive, schema version 4: Go games.
--
-- A Go game is stored like a Keil game, with kind 'go' and size its
-- square's side; `ruleset` holds the Go ruleset code (japanese, korean,
-- chinese, aga, nz, tromp-taylor, kee), `komi` half-points, `status` may be
-- 'scored', `setup` the starting position in Go row notation (with ` b` /
-- ` w` when the record names the first player, none for either colour),
-- and `moves` two bytes per move with the player's colour (keil-archive
-- `moves.rs`).

-- `HA`: the handicap (0 when absent); with no setup, Black's first
-- `handicap` moves are free handicap stones. Always 0 for Keil.
ALTER TABLE games ADD COLUMN handicap INTEGER NOT NULL DEFAULT 0;
