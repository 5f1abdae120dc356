-- replaces: 0001_contacts
-- The squash of 0001_contacts without its tag table: the tag and count tables
-- are the SDK's listing tables (ContactsTables.h, 0006_contact_listing).

-- Contacts of a tenant company (docs/modules/contacts.md).
-- company_id is the tenant; crm_company_id is the linked CRM company (the API's
-- company_id), owned by the companies module and cleared when it is deleted.
--
-- seq is the SQLite rowid, named so it never changes (VACUUM may renumber an
-- implicit rowid): the full-text index below refers to rows by it.
CREATE TABLE contacts (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
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
    lower(name || char(10) || coalesce(email, '') || char(10) || coalesce(phone, ''))) STORED
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

-- The search: trigram full-text index over search_text (substring matches of
-- 3 characters or more), kept in sync with contacts by the triggers below.
CREATE VIRTUAL TABLE contacts_search USING fts5(
  search_text, content = 'contacts', content_rowid = 'seq', tokenize = 'trigram');
CREATE TRIGGER contacts_search_insert AFTER INSERT ON contacts BEGIN
  INSERT INTO contacts_search (rowid, search_text) VALUES (new.seq, new.search_text);
END;
CREATE TRIGGER contacts_search_delete AFTER DELETE ON contacts BEGIN
  INSERT INTO contacts_search (contacts_search, rowid, search_text)
    VALUES ('delete', old.seq, old.search_text);
END;
CREATE TRIGGER contacts_search_update AFTER UPDATE OF name, email, phone ON contacts BEGIN
  INSERT INTO contacts_search (contacts_search, rowid, search_text)
    VALUES ('delete', old.seq, old.search_text);
  INSERT INTO contacts_search (rowid, search_text) VALUES (new.seq, new.search_text);
END;
