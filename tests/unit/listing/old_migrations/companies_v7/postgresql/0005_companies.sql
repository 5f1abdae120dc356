-- replaces: 0001_companies
-- The squash of 0001_companies without its tag table: the tag and count tables
-- are the SDK's listing tables (CompaniesTables.h, 0006_crm_company_listing).

-- CRM companies of a tenant company (docs/modules/companies.md). The table is
-- crm_companies because "companies" holds the tenants (the host's accounts).
-- company_id is the tenant.

-- Trigram indexes for the search (a trusted extension: the database owner may create it).
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE crm_companies (
  id TEXT PRIMARY KEY,
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
    lower(name || E'\n' || coalesce(document, '') || E'\n' || coalesce(website, ''))) STORED
);
CREATE UNIQUE INDEX crm_companies_document ON crm_companies (company_id, document);
-- The default order (created_at desc, id desc) and the other sorts.
CREATE INDEX crm_companies_created ON crm_companies (company_id, created_at, id);
CREATE INDEX crm_companies_updated ON crm_companies (company_id, updated_at, id);
CREATE INDEX crm_companies_name ON crm_companies (company_id, lower(name), id);
-- The industry and size filters (exact, any case; newest first without a sort).
CREATE INDEX crm_companies_industry ON crm_companies (company_id, lower(industry), created_at, id);
CREATE INDEX crm_companies_size ON crm_companies (company_id, lower(size), created_at, id);
-- The search: substring matches through trigrams (LIKE '%term%').
CREATE INDEX crm_companies_search ON crm_companies USING gin (search_text gin_trgm_ops);
