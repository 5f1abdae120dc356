-- Deals of a tenant company (docs/modules/deals.md).
-- company_id is the tenant; crm_company_id is the linked CRM company (the API's
-- company_id). pipeline_id and stage_id belong to the pipelines module,
-- contact_id to contacts, crm_company_id to companies: they are checked through
-- the record directory, never joined.
--
-- seq is the SQLite rowid, named so it never changes (VACUUM may renumber an
-- implicit rowid): the full-text index below refers to rows by it.
CREATE TABLE deals (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
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

-- The search: trigram full-text index over search_text (substring matches of
-- 3 characters or more), kept in sync with deals by the triggers below.
CREATE VIRTUAL TABLE deals_search USING fts5(
  search_text, content = 'deals', content_rowid = 'seq', tokenize = 'trigram');
CREATE TRIGGER deals_search_insert AFTER INSERT ON deals BEGIN
  INSERT INTO deals_search (rowid, search_text) VALUES (new.seq, new.search_text);
END;
CREATE TRIGGER deals_search_delete AFTER DELETE ON deals BEGIN
  INSERT INTO deals_search (deals_search, rowid, search_text)
    VALUES ('delete', old.seq, old.search_text);
END;
CREATE TRIGGER deals_search_update AFTER UPDATE OF title ON deals BEGIN
  INSERT INTO deals_search (deals_search, rowid, search_text)
    VALUES ('delete', old.seq, old.search_text);
  INSERT INTO deals_search (rowid, search_text) VALUES (new.seq, new.search_text);
END;

-- The exact number of each tenant's deals (docs/modules/contacts.md, "The row
-- count"). SQLite has one writer at a time: one slot (0).
CREATE TABLE deal_counts (
  company_id TEXT NOT NULL,
  slot SMALLINT NOT NULL,
  total BIGINT NOT NULL,
  PRIMARY KEY (company_id, slot)
);
CREATE TRIGGER deal_counts_insert AFTER INSERT ON deals BEGIN
  INSERT INTO deal_counts (company_id, slot, total) VALUES (new.company_id, 0, 1)
    ON CONFLICT (company_id, slot) DO UPDATE SET total = total + 1;
END;
CREATE TRIGGER deal_counts_delete AFTER DELETE ON deals BEGIN
  INSERT INTO deal_counts (company_id, slot, total) VALUES (old.company_id, 0, -1)
    ON CONFLICT (company_id, slot) DO UPDATE SET total = total - 1;
END;
