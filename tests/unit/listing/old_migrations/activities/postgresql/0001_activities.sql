-- Activities of a tenant company (docs/modules/activities.md): calls,
-- meetings, e-mails, tasks and notes, each optionally related to a contact, a
-- CRM company or a deal (related_type, related_id; both NULL or both set,
-- cleared when the related record is deleted).

-- Trigram indexes for the search (a trusted extension: the database owner may create it).
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE activities (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL,
  -- call, meeting, email, task or note.
  type TEXT NOT NULL,
  title TEXT NOT NULL,
  description TEXT,
  -- pending or completed.
  status TEXT NOT NULL,
  scheduled_at BIGINT,
  duration_minutes BIGINT,
  owner_id TEXT,
  -- contact, company or deal, and the id of that record.
  related_type TEXT,
  related_id TEXT,
  completed_at BIGINT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  -- What ?search= matches: title and description, lower-cased.
  search_text TEXT GENERATED ALWAYS AS (
    lower(title || E'\n' || coalesce(description, ''))) STORED
);
-- The default order (created_at desc, id desc) and the other sorts. An
-- activity without scheduled_at sorts after every scheduled one (the sort
-- key's NULL stands in as the largest BIGINT); the same key serves the
-- scheduled_from / scheduled_to range.
CREATE INDEX activities_created ON activities (company_id, created_at, id);
CREATE INDEX activities_updated ON activities (company_id, updated_at, id);
CREATE INDEX activities_title ON activities (company_id, lower(title), id);
CREATE INDEX activities_scheduled
  ON activities (company_id, coalesce(scheduled_at, 9223372036854775807), id);
-- The type, status, owner_id and related_type/related_id filters (newest first
-- without a sort), the sub-lists and the unlinking.
CREATE INDEX activities_type ON activities (company_id, type, created_at, id);
CREATE INDEX activities_status ON activities (company_id, status, created_at, id);
CREATE INDEX activities_owner ON activities (company_id, owner_id, created_at, id);
CREATE INDEX activities_related
  ON activities (company_id, related_type, related_id, created_at, id);
-- The search: substring matches through trigrams (LIKE '%term%').
CREATE INDEX activities_search ON activities USING gin (search_text gin_trgm_ops);

-- The exact number of each tenant's activities is the sum of its slots, so
-- the unfiltered list reads meta.total from a few rows instead of counting the
-- tenant's rows (docs/modules/contacts.md, "The row count"). A tenant without
-- a row has no activities.
CREATE TABLE activity_counts (
  company_id TEXT NOT NULL,
  slot SMALLINT NOT NULL,
  total BIGINT NOT NULL,
  PRIMARY KEY (company_id, slot)
);

-- One function for both events: +1 on insert, -1 on delete, on one of 8
-- slots at random per change (a slot may go below 0; the sum is exact), so
-- concurrent writers of one tenant rarely wait for each other's count row.
CREATE FUNCTION activity_counts_track() RETURNS trigger AS $$
DECLARE
  chosen SMALLINT := floor(random() * 8);
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO activity_counts AS c (company_id, slot, total) VALUES (NEW.company_id, chosen, 1)
      ON CONFLICT (company_id, slot) DO UPDATE SET total = c.total + 1;
    RETURN NULL;
  END IF;
  INSERT INTO activity_counts AS c (company_id, slot, total) VALUES (OLD.company_id, chosen, -1)
    ON CONFLICT (company_id, slot) DO UPDATE SET total = c.total - 1;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

-- One trigger for INSERT OR DELETE, and the last statement of the file: the
-- migration splitter (host/storage/SqlSplitter.cpp) reads every CREATE
-- TRIGGER as an SQLite one, whose statement ends only at "END;", so a
-- PostgreSQL CREATE TRIGGER runs whole only when nothing follows it.
CREATE TRIGGER activity_counts_track AFTER INSERT OR DELETE ON activities
  FOR EACH ROW EXECUTE FUNCTION activity_counts_track();
