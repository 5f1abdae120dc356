-- The event log (docs/events.md): every event a module emits, written in the
-- same transaction as the change that caused it (Tx::emit). `sequence`
-- numbers each company's events in commit order. On SQLite writers are
-- serialised (BEGIN IMMEDIATE), so the emitting transaction simply takes the
-- next number from event_sequences when it emits. (PostgreSQL takes it at
-- commit, by trigger: see the twin of this file.) Rows older
-- than events.retention_days are removed by the host's events.retention job.
--
-- 0001 created a first `events` table that nothing read; it is replaced.
DROP TABLE events;
CREATE TABLE events (
  company_id TEXT NOT NULL,
  sequence BIGINT NOT NULL,
  id TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL,
  module TEXT NOT NULL,
  request_id TEXT,
  data TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (company_id, sequence)
);
CREATE INDEX events_created ON events (created_at);
CREATE TABLE event_sequences (
  company_id TEXT PRIMARY KEY,
  last_sequence BIGINT NOT NULL
);
