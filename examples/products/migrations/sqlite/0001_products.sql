-- The product catalogue of a tenant company: one column per field of the
-- resource (src/ProductsModule.cpp), named like the field, and the columns
-- rapport/resource.h expects (id, company_id, created_at, updated_at).
--
-- seq is the SQLite rowid, named so it never changes (VACUUM may renumber an
-- implicit rowid): the full-text index below refers to rows by it.
CREATE TABLE products (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  company_id TEXT NOT NULL,
  name TEXT NOT NULL,
  sku TEXT,
  description TEXT,
  -- Integer cents.
  price BIGINT NOT NULL,
  currency TEXT NOT NULL,
  -- A boolean: 0 or 1.
  active INTEGER NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  -- What ?search= matches: the searchable fields (name and sku), lower-cased.
  search_text TEXT GENERATED ALWAYS AS (lower(name || char(10) || coalesce(sku, ''))) STORED
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

-- The search: trigram full-text index over search_text (substring matches of
-- 3 characters or more), kept in sync with products by the triggers below.
CREATE VIRTUAL TABLE products_search USING fts5(
  search_text, content = 'products', content_rowid = 'seq', tokenize = 'trigram');
CREATE TRIGGER products_search_insert AFTER INSERT ON products BEGIN
  INSERT INTO products_search (rowid, search_text) VALUES (new.seq, new.search_text);
END;
CREATE TRIGGER products_search_delete AFTER DELETE ON products BEGIN
  INSERT INTO products_search (products_search, rowid, search_text)
    VALUES ('delete', old.seq, old.search_text);
END;
CREATE TRIGGER products_search_update AFTER UPDATE OF name, sku ON products BEGIN
  INSERT INTO products_search (products_search, rowid, search_text)
    VALUES ('delete', old.seq, old.search_text);
  INSERT INTO products_search (rowid, search_text) VALUES (new.seq, new.search_text);
END;
