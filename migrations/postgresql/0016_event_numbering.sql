-- The event log's numbers are taken after the write commits (issue 25,
-- docs/events.md "Numbering"), no longer at its commit: 0003's deferred
-- trigger locked the company's event_sequences row from the trigger to the
-- end of the commit, so each commit of a company waited for the previous
-- one's WAL flush, which capped one company's write rate.
--
-- A writer inserts its events with a provisional negative number (as
-- before), commits, and then calls events_number() (the host shares one
-- call among the writers waiting for it): under an advisory lock (the
-- two-key form, class 1635020293 and 1: fixed numbers no other lock of
-- Rapport uses) it numbers every committed unnumbered event, of every
-- company, after its company's last number, in insertion order, in one
-- statement, and returns how many. Passes are serialised by the lock, each
-- one's numbers follow the previous one's, and a reader sees a pass's
-- numbers at once, at its commit: readers never see a gap that fills later.
-- One pass, one commit, serves every write that committed before it began.
-- The host's events.numbering job runs a pass every second for writers that
-- died between their commit and their pass.
DROP TRIGGER events_number ON events;
DROP FUNCTION events_number_at_commit();
-- Only the unnumbered rows: what a pass reads.
CREATE INDEX events_unnumbered ON events (company_id, sequence) WHERE sequence < 0;
-- enable_seqscan off for the pass only: a young events table without
-- statistics would be planned as a scan of the whole log for `sequence < 0`
-- (a third of the rows, by the default estimate) under the lock every pass
-- waits for; through events_unnumbered and the id index it reads only what
-- it numbers.
CREATE FUNCTION events_number() RETURNS BIGINT LANGUAGE plpgsql SET enable_seqscan = off AS $$
DECLARE
  numbered BIGINT;
BEGIN
  PERFORM pg_advisory_xact_lock(1635020293, 1);
  -- One statement, one snapshot: events committing meanwhile wait for the
  -- next pass. Counter rows in company order (the retention job updates
  -- them in that order too).
  WITH pending AS (
    SELECT company_id, id,
           row_number() OVER (PARTITION BY company_id ORDER BY sequence DESC) AS k,
           count(*) OVER (PARTITION BY company_id) AS n
      FROM events WHERE sequence < 0),
  counters AS (
    INSERT INTO event_sequences AS s (company_id, last_sequence)
      SELECT company_id, max(n) FROM pending GROUP BY company_id ORDER BY company_id
      ON CONFLICT (company_id) DO UPDATE SET last_sequence = s.last_sequence + EXCLUDED.last_sequence
      RETURNING s.company_id, s.last_sequence)
  UPDATE events e SET sequence = c.last_sequence - p.n + p.k
    FROM pending p JOIN counters c ON c.company_id = p.company_id
    WHERE e.id = p.id;
  GET DIAGNOSTICS numbered = ROW_COUNT;
  RETURN numbered;
END
$$;
