-- replaces: 0001_contacts
-- The squash of 0001_contacts without its tag table: the tag and count tables
-- are the SDK's listing tables (ContactsTables.h, 0006_contact_listing).

-- Contacts of a tenant company (docs/modules/contacts.md).
-- company_id is the tenant; crm_company_id is the linked CRM company (the API's
-- company_id), owned by the companies module and cleared when it is deleted.

-- Trigram indexes for the search (a trusted extension: the database owner may create it).
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE contacts (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL,
  name TEXT NOT NULL,
  -- Lower-cased by validation, so the unique index is case-insensitive.
  email TEXT,
  phone TEXT,
  job_title TEXT,
  crm_company_id TEXT,
  owner_id TEXT,
  -- JSON array of the tags as written, in order (contact_tags indexes them).
  tags TEXT NOT NULL DEFAULT '[]',
  notes TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  -- What ?search= matches: name, e-mail and phone, lower-cased.
  search_text TEXT GENERATED ALWAYS AS (
    lower(name || E'\n' || coalesce(email, '') || E'\n' || coalesce(phone, ''))) STORED
);
CREATE UNIQUE INDEX contacts_email ON contacts (company_id, email);
-- The default order (created_at desc, id desc) and the other sorts.
CREATE INDEX contacts_created ON contacts (company_id, created_at, id);
CREATE INDEX contacts_updated ON contacts (company_id, updated_at, id);
CREATE INDEX contacts_name ON contacts (company_id, lower(name), id);
-- The company_id and owner_id filters (newest first without a sort), the
-- sub-list and the unlinking.
CREATE INDEX contacts_crm_company ON contacts (company_id, crm_company_id, created_at, id);
CREATE INDEX contacts_owner ON contacts (company_id, owner_id, created_at, id);
-- The search: substring matches through trigrams (LIKE '%term%').
CREATE INDEX contacts_search ON contacts USING gin (search_text gin_trgm_ops);
