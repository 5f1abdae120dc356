-- Deals of a tenant company (docs/modules/deals.md).
-- company_id is the tenant; crm_company_id is the linked CRM company (the API's
-- company_id). pipeline_id and stage_id belong to the pipelines module,
-- contact_id to contacts, crm_company_id to companies: they are checked through
-- the record directory, never joined.

-- Trigram indexes for the search (a trusted extension: the database owner may create it).
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE deals (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL,
  title TEXT NOT NULL,
  pipeline_id TEXT NOT NULL,
  stage_id TEXT NOT NULL,
  -- open, won or lost.
  status TEXT NOT NULL,
  -- Cents, 0 when not given.
  value BIGINT NOT NULL DEFAULT 0,
  currency TEXT NOT NULL,
  contact_id TEXT,
  crm_company_id TEXT,
  owner_id TEXT,
  -- Dates are TEXT YYYY-MM-DD.
  expected_close_date TEXT,
  probability INTEGER NOT NULL,
  -- JSON array of the tags as written, in order (deal_tags indexes them).
  tags TEXT NOT NULL DEFAULT '[]',
  notes TEXT,
  won_at TEXT,
  lost_at TEXT,
  lost_reason TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  -- What ?search= matches: the title, lower-cased.
  search_text TEXT GENERATED ALWAYS AS (lower(title)) STORED
);
-- The default order (created_at desc, id desc) and the other sorts.
CREATE INDEX deals_created ON deals (company_id, created_at, id);
CREATE INDEX deals_updated ON deals (company_id, updated_at, id);
CREATE INDEX deals_title ON deals (company_id, lower(title), id);
CREATE INDEX deals_value ON deals (company_id, value, id);
CREATE INDEX deals_close ON deals (company_id, coalesce(expected_close_date, '9999-12-32'), id);
-- The filters (newest first without a sort), the sub-lists, the unlinking
-- and the deletion guards of stages and pipelines.
CREATE INDEX deals_status ON deals (company_id, status, created_at, id);
CREATE INDEX deals_pipeline ON deals (company_id, pipeline_id, created_at, id);
CREATE INDEX deals_stage ON deals (company_id, stage_id, created_at, id);
CREATE INDEX deals_contact ON deals (company_id, contact_id, created_at, id);
CREATE INDEX deals_crm_company ON deals (company_id, crm_company_id, created_at, id);
CREATE INDEX deals_owner ON deals (company_id, owner_id, created_at, id);
-- The search: substring matches through trigrams (LIKE '%term%').
CREATE INDEX deals_search ON deals USING gin (search_text gin_trgm_ops);

-- The tag filter: one row per tag, lower-cased, with the deal's created_at
-- (the shape of contacts' 0003_contact_tags_order.sql).
CREATE TABLE deal_tags (
  company_id TEXT NOT NULL,
  deal_id TEXT NOT NULL,
  tag_lower TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (deal_id, tag_lower)
);
CREATE INDEX deal_tags_ordered ON deal_tags (company_id, tag_lower, created_at, deal_id);

-- The exact number of each tenant's deals, spread over slots (summed on
-- read), kept by the trigger below (docs/modules/contacts.md, "The row count").
CREATE TABLE deal_counts (
  company_id TEXT NOT NULL,
  slot SMALLINT NOT NULL,
  total BIGINT NOT NULL,
  PRIMARY KEY (company_id, slot)
);
-- One of 8 slots at random per change (a slot may go below 0; the sum is exact).
CREATE FUNCTION deal_counts_track() RETURNS trigger AS $$
DECLARE
  chosen SMALLINT := floor(random() * 8);
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO deal_counts AS c (company_id, slot, total) VALUES (NEW.company_id, chosen, 1)
      ON CONFLICT (company_id, slot) DO UPDATE SET total = c.total + 1;
    RETURN NULL;
  END IF;
  INSERT INTO deal_counts AS c (company_id, slot, total) VALUES (OLD.company_id, chosen, -1)
    ON CONFLICT (company_id, slot) DO UPDATE SET total = c.total - 1;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

-- The last statement of the file: the migration splitter
-- (host/storage/SqlSplitter.cpp) runs a PostgreSQL CREATE TRIGGER whole only
-- when nothing follows it.
CREATE TRIGGER deal_counts_track AFTER INSERT OR DELETE ON deals
  FOR EACH ROW EXECUTE FUNCTION deal_counts_track();
