-- Who caused each event (decisions §15, §16): a user, an API key or the
-- system (jobs). Events logged before this migration read as the system's.
ALTER TABLE events ADD COLUMN actor_type TEXT NOT NULL DEFAULT 'system';
ALTER TABLE events ADD COLUMN actor_id TEXT;
