-- The event log's horizon (docs/events.md "Reading the log"): per company,
-- what the events.retention job already removed, so a reader asking for
-- older events (GET /v1/events, webhook replays) learns its answer is
-- incomplete (EventPage::truncated, a 410) instead of seeing a silent gap.
-- `purged_through`: the highest sequence removed; `purged_before`: the
-- created_at cut-off (microseconds) of the last removal. Both only grow,
-- and are written in the same transaction as the removal.
ALTER TABLE event_sequences ADD COLUMN purged_through BIGINT NOT NULL DEFAULT 0;
ALTER TABLE event_sequences ADD COLUMN purged_before BIGINT NOT NULL DEFAULT 0;
