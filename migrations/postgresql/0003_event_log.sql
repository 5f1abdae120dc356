-- The event log (docs/events.md): every event a module emits, written in the
-- same transaction as the change that caused it (Tx::emit). `sequence`
-- numbers each company's events in commit order. On PostgreSQL the number is
-- taken AT COMMIT by the deferred constraint trigger below (the row is
-- inserted with a provisional negative number): the company's
-- event_sequences row is locked only from the trigger to the end of the
-- commit, never across the client's statements, so concurrent writers of a
-- company wait microseconds, not round trips. Rows older than
-- events.retention_days are removed by the host's events.retention job.
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
CREATE SEQUENCE events_provisional;
-- Runs once per event row, at commit, in insertion order.
CREATE FUNCTION events_number_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  n BIGINT;
BEGIN
  INSERT INTO event_sequences (company_id, last_sequence) VALUES (NEW.company_id, 1)
    ON CONFLICT (company_id) DO UPDATE SET last_sequence = event_sequences.last_sequence + 1
    RETURNING last_sequence INTO n;
  UPDATE events SET sequence = n WHERE id = NEW.id;
  RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER events_number AFTER INSERT ON events
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION events_number_at_commit();
