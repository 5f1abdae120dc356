-- The event log: every event a module emits, written in the same
-- transaction as the change that caused it (Tx::emit). The webhooks module
-- fans events out to deliveries from here.
CREATE TABLE events (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL,
  type TEXT NOT NULL,
  data TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX events_company_created ON events (company_id, created_at);
