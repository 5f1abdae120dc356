-- Pipelines of a tenant company and their ordered stages (docs/modules/pipelines.md).
-- company_id is the tenant. deals_count and deals_value are not stored here:
-- the deals module adds them as pipelines are shown (records augment).
-- Booleans are INTEGER 0/1 (rapport/db.h).

CREATE TABLE pipelines (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL,
  name TEXT NOT NULL,
  is_default INTEGER NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
-- At most one default pipeline per tenant, whatever the code does.
CREATE UNIQUE INDEX pipelines_default ON pipelines (company_id) WHERE is_default;
-- The default order (created_at desc, id desc), the other sorts, and the
-- oldest pipeline (promoted when the default is deleted).
CREATE INDEX pipelines_created ON pipelines (company_id, created_at, id);
CREATE INDEX pipelines_updated ON pipelines (company_id, updated_at, id);
CREATE INDEX pipelines_name ON pipelines (company_id, lower(name), id);

-- Stages: position is the API's `order`, 1..n without gaps within a pipeline.
CREATE TABLE pipeline_stages (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL,
  pipeline_id TEXT NOT NULL,
  name TEXT NOT NULL,
  position INTEGER NOT NULL,
  probability INTEGER NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
-- The ordered stages of a pipeline (and of a page of pipelines); unique so
-- two stages can never share a place.
CREATE UNIQUE INDEX pipeline_stages_order ON pipeline_stages (company_id, pipeline_id, position);

-- One row per tenant that ever had a pipeline: the writes that decide which
-- pipeline is the default lock it first (on SQLite the writer lock already
-- serialises them; the table keeps one code path for both engines).
CREATE TABLE pipeline_tenants (
  company_id TEXT PRIMARY KEY
);

-- The exact number of each tenant's pipelines (one writer at a time: slot 0).
CREATE TABLE pipeline_counts (
  company_id TEXT NOT NULL,
  slot SMALLINT NOT NULL,
  total BIGINT NOT NULL,
  PRIMARY KEY (company_id, slot)
);
CREATE TRIGGER pipeline_counts_insert AFTER INSERT ON pipelines BEGIN
  INSERT INTO pipeline_counts (company_id, slot, total) VALUES (new.company_id, 0, 1)
    ON CONFLICT (company_id, slot) DO UPDATE SET total = total + 1;
END;
CREATE TRIGGER pipeline_counts_delete AFTER DELETE ON pipelines BEGIN
  INSERT INTO pipeline_counts (company_id, slot, total) VALUES (old.company_id, 0, -1)
    ON CONFLICT (company_id, slot) DO UPDATE SET total = total - 1;
END;
