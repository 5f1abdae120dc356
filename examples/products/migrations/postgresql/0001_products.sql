-- The product catalogue of a tenant company: one column per field of the
-- resource (src/ProductsModule.cpp), named like the field, and the columns
-- rapport/resource.h expects (id, company_id, created_at, updated_at).

-- Trigram indexes for the search (a trusted extension: the database owner may create it).
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE products (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL,
  name TEXT NOT NULL,
  sku TEXT,
  description TEXT,
  -- Integer cents.
  price BIGINT NOT NULL,
  currency TEXT NOT NULL,
  active BOOLEAN NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  -- What ?search= matches: the searchable fields (name and sku), lower-cased.
  search_text TEXT GENERATED ALWAYS AS (lower(name || E'\n' || coalesce(sku, ''))) STORED
);
-- sku is unique per company (several products may have none).
CREATE UNIQUE INDEX products_sku ON products (company_id, sku);
-- The default order (created_at desc, id desc) and the other sorts.
CREATE INDEX products_created ON products (company_id, created_at, id);
CREATE INDEX products_updated ON products (company_id, updated_at, id);
CREATE INDEX products_name ON products (company_id, lower(name), id);
CREATE INDEX products_price ON products (company_id, price, id);
-- The ?active= filter, newest first.
CREATE INDEX products_active ON products (company_id, active, created_at, id);
-- The search: substring matches through trigrams (LIKE '%term%').
CREATE INDEX products_search ON products USING gin (search_text gin_trgm_ops);
