-- replaces: 0001_activities
-- The squash of 0001_activities without its count table: that is the SDK's
-- listing table (ActivitiesTables.h, 0003_activity_listing).

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
