-- The items of a tenant company: one column per field of the resource
-- (src/Module.cpp), named like the field, and the columns rapport/resource.h
-- expects.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE starter_items (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL,
  name TEXT NOT NULL,
  notes TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  -- What ?search= matches: the searchable fields, lower-cased, one per line.
  search_text TEXT GENERATED ALWAYS AS (lower(name)) STORED
);
-- The default order (newest first), the other sorts.
CREATE INDEX starter_items_created ON starter_items (company_id, created_at, id);
CREATE INDEX starter_items_updated ON starter_items (company_id, updated_at, id);
CREATE INDEX starter_items_name ON starter_items (company_id, lower(name), id);
-- The search: substring matches through trigrams (LIKE '%term%').
CREATE INDEX starter_items_search ON starter_items USING gin (search_text gin_trgm_ops);
