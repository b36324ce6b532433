-- Keil archive, schema version 6: counts kept as rows are written.
--
-- `Archive::stats` (GET /api/v1/stats, the home page, `keil stats`) read
-- these rows instead of counting the tables on every call (1.35 s at
-- 510,000 games). Triggers keep them equal to COUNT(*) on every INSERT and
-- DELETE, whoever writes (an import, a future deletion); this migration
-- fills them from the rows already stored.
--
-- Names: 'games', 'players', 'imports', 'import_problems';
-- 'status <code>' (games per status); 'board <kind> <size>' (games per
-- kind and board size; per kind is their sum).
CREATE TABLE counts (
    name  TEXT PRIMARY KEY,
    n     INTEGER NOT NULL
) WITHOUT ROWID;

INSERT INTO counts SELECT 'games', COUNT(*) FROM games;
INSERT INTO counts SELECT 'players', COUNT(*) FROM players;
INSERT INTO counts SELECT 'imports', COUNT(*) FROM imports;
INSERT INTO counts SELECT 'import_problems', COUNT(*) FROM import_problems;
INSERT INTO counts SELECT 'status ' || status, COUNT(*) FROM games GROUP BY status;
INSERT INTO counts SELECT 'board ' || kind || ' ' || size, COUNT(*) FROM games GROUP BY kind, size;

CREATE TRIGGER counts_games_insert AFTER INSERT ON games BEGIN
    UPDATE counts SET n = n + 1 WHERE name = 'games';
    INSERT OR IGNORE INTO counts VALUES ('status ' || NEW.status, 0);
    UPDATE counts SET n = n + 1 WHERE name = 'status ' || NEW.status;
    INSERT OR IGNORE INTO counts VALUES ('board ' || NEW.kind || ' ' || NEW.size, 0);
    UPDATE counts SET n = n + 1 WHERE name = 'board ' || NEW.kind || ' ' || NEW.size;
END;
CREATE TRIGGER counts_games_delete AFTER DELETE ON games BEGIN
    UPDATE counts SET n = n - 1 WHERE name IN
        ('games', 'status ' || OLD.status, 'board ' || OLD.kind || ' ' || OLD.size);
END;
-- Kind, size and status are not changed after a game is stored; should an
-- update change them, the counts follow.
CREATE TRIGGER counts_games_update AFTER UPDATE OF kind, size, status ON games BEGIN
    UPDATE counts SET n = n - 1 WHERE name IN
        ('status ' || OLD.status, 'board ' || OLD.kind || ' ' || OLD.size);
    INSERT OR IGNORE INTO counts VALUES ('status ' || NEW.status, 0);
    UPDATE counts SET n = n + 1 WHERE name = 'status ' || NEW.status;
    INSERT OR IGNORE INTO counts VALUES ('board ' || NEW.kind || ' ' || NEW.size, 0);
    UPDATE counts SET n = n + 1 WHERE name = 'board ' || NEW.kind || ' ' || NEW.size;
END;

CREATE TRIGGER counts_players_insert AFTER INSERT ON players BEGIN
    UPDATE counts SET n = n + 1 WHERE name = 'players';
END;
CREATE TRIGGER counts_players_delete AFTER DELETE ON players BEGIN
    UPDATE counts SET n = n - 1 WHERE name = 'players';
END;
CREATE TRIGGER counts_imports_insert AFTER INSERT ON imports BEGIN
    UPDATE counts SET n = n + 1 WHERE name = 'imports';
END;
CREATE TRIGGER counts_imports_delete AFTER DELETE ON imports BEGIN
    UPDATE counts SET n = n - 1 WHERE name = 'imports';
END;
CREATE TRIGGER counts_import_problems_insert AFTER INSERT ON import_problems BEGIN
    UPDATE counts SET n = n + 1 WHERE name = 'import_problems';
END;
CREATE TRIGGER counts_import_problems_delete AFTER DELETE ON import_problems BEGIN
    UPDATE counts SET n = n - 1 WHERE name = 'import_problems';
END;
