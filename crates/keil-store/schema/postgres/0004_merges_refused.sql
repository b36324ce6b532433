-- A merge is a proof, refused records are kept: as SQLite's schema 14
-- (schema/0014_merges_refused.sql says what each column holds).
ALTER TABLE games ADD COLUMN source TEXT COLLATE "C";
ALTER TABLE games ADD COLUMN game_index BIGINT;

ALTER TABLE game_sources ADD COLUMN merge_kind TEXT COLLATE "C";
ALTER TABLE game_sources ADD COLUMN transform BIGINT NOT NULL DEFAULT 0;
ALTER TABLE game_sources ADD COLUMN differs TEXT COLLATE "C";

CREATE TABLE game_links (
    game_id    BIGINT NOT NULL,
    other_id   BIGINT NOT NULL,
    kind       TEXT COLLATE "C" NOT NULL,
    transform  BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, other_id)
);
CREATE INDEX game_links_other ON game_links(other_id);

ALTER TABLE import_problems ADD COLUMN record BYTEA;
ALTER TABLE import_problems ADD COLUMN hash BYTEA;
ALTER TABLE import_problems ADD COLUMN kind TEXT COLLATE "C";
ALTER TABLE import_problems ADD COLUMN size BIGINT;
ALTER TABLE import_problems ADD COLUMN mv TEXT COLLATE "C";
CREATE INDEX import_problems_hash ON import_problems(hash) WHERE hash IS NOT NULL;
CREATE INDEX import_problems_reason ON import_problems(reason, id);

CREATE TABLE upgrades (
    name     TEXT COLLATE "C" PRIMARY KEY,
    done_at  TEXT COLLATE "C"
);
INSERT INTO upgrades (name) VALUES ('merges 14');

INSERT INTO schema_version VALUES (4);
