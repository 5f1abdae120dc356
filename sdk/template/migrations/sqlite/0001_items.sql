-- The items of a tenant company: one column per field of the resource
-- (src/Module.cpp), named like the field, and the columns rapport/resource.h
-- expects. seq is the rowid the full-text index refers to.
CREATE TABLE starter_items (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
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

-- The search: a trigram full-text index over search_text, named <table>_search.
CREATE VIRTUAL TABLE starter_items_search USING fts5(
  search_text, content = 'starter_items', content_rowid = 'seq', tokenize = 'trigram');
CREATE TRIGGER starter_items_search_insert AFTER INSERT ON starter_items BEGIN
  INSERT INTO starter_items_search (rowid, search_text) VALUES (new.seq, new.search_text);
END;
CREATE TRIGGER starter_items_search_delete AFTER DELETE ON starter_items BEGIN
  INSERT INTO starter_items_search (starter_items_search, rowid, search_text)
    VALUES ('delete', old.seq, old.search_text);
END;
CREATE TRIGGER starter_items_search_update AFTER UPDATE OF name ON starter_items BEGIN
  INSERT INTO starter_items_search (starter_items_search, rowid, search_text)
    VALUES ('delete', old.seq, old.search_text);
  INSERT INTO starter_items_search (rowid, search_text) VALUES (new.seq, new.search_text);
END;
