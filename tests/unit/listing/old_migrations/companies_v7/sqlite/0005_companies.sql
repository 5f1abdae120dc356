-- replaces: 0001_companies
-- The squash of 0001_companies without its tag table: the tag and count tables
-- are the SDK's listing tables (CompaniesTables.h, 0006_crm_company_listing).

-- CRM companies of a tenant company (docs/modules/companies.md). The table is
-- crm_companies because "companies" holds the tenants (the host's accounts).
-- company_id is the tenant.
--
-- seq is the SQLite rowid, named so it never changes (VACUUM may renumber an
-- implicit rowid): the full-text index below refers to rows by it.
CREATE TABLE crm_companies (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  company_id TEXT NOT NULL,
  name TEXT NOT NULL,
  document TEXT,
  industry TEXT,
  website TEXT,
  size TEXT,
  annual_revenue BIGINT,
  phone TEXT,
  -- JSON array of the tags as written, in order (crm_company_tags indexes them).
  tags TEXT NOT NULL DEFAULT '[]',
  notes TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  -- What ?search= matches: name, document and website, lower-cased.
  search_text TEXT GENERATED ALWAYS AS (
    lower(name || char(10) || coalesce(document, '') || char(10) || coalesce(website, ''))) STORED
);
CREATE UNIQUE INDEX crm_companies_document ON crm_companies (company_id, document);
-- The default order (created_at desc, id desc) and the other sorts.
CREATE INDEX crm_companies_created ON crm_companies (company_id, created_at, id);
CREATE INDEX crm_companies_updated ON crm_companies (company_id, updated_at, id);
CREATE INDEX crm_companies_name ON crm_companies (company_id, lower(name), id);
-- The industry and size filters (exact, any case; newest first without a sort).
CREATE INDEX crm_companies_industry ON crm_companies (company_id, lower(industry), created_at, id);
CREATE INDEX crm_companies_size ON crm_companies (company_id, lower(size), created_at, id);

-- The search: trigram full-text index over search_text (substring matches of
-- 3 characters or more), kept in sync with crm_companies by the triggers below.
CREATE VIRTUAL TABLE crm_companies_search USING fts5(
  search_text, content = 'crm_companies', content_rowid = 'seq', tokenize = 'trigram');
CREATE TRIGGER crm_companies_search_insert AFTER INSERT ON crm_companies BEGIN
  INSERT INTO crm_companies_search (rowid, search_text) VALUES (new.seq, new.search_text);
END;
CREATE TRIGGER crm_companies_search_delete AFTER DELETE ON crm_companies BEGIN
  INSERT INTO crm_companies_search (crm_companies_search, rowid, search_text)
    VALUES ('delete', old.seq, old.search_text);
END;
CREATE TRIGGER crm_companies_search_update AFTER UPDATE OF name, document, website
    ON crm_companies BEGIN
  INSERT INTO crm_companies_search (crm_companies_search, rowid, search_text)
    VALUES ('delete', old.seq, old.search_text);
  INSERT INTO crm_companies_search (rowid, search_text) VALUES (new.seq, new.search_text);
END;
