-- Keil archive, schema version 12: a covering index of the columns a node
-- keeps per game (its facts: date, result, players, komi, handicap, ranks,
-- event), so that a node's first load reads them from this index instead
-- of every games row (a row holds its record and moves: at a million 19×19
-- games, 71 MB of index against 1.9 GB of rows; the facts' read took 2.0 s,
-- 0.76 s from the index). SQLite chooses it for the facts' range of ids
-- without being told; PostgreSQL keeps records out of its rows (TOAST) and
-- needs none.
CREATE INDEX games_facts ON games(id, date, winner, black_id, white_id, komi, handicap,
    black_rank_ord, white_rank_ord, event, result, black_rank, white_rank);
