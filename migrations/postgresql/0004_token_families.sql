-- Token families (issue 8): every token belongs to the login that started it.
--   family_id           the login's family: the first token's id, shared by
--                       every token refreshed or switched from it
--   session_started_at  when that login happened (micros); no token of the
--                       family expires after it + auth.max_session_age
--   refreshed_at        set once, when this token was refreshed: refreshing
--                       it again is reuse, and revokes the whole family
--   replaced_by         the id of the token that refresh issued
-- Existing tokens each become a family of their own, started when issued.

ALTER TABLE tokens ADD COLUMN family_id TEXT;
ALTER TABLE tokens ADD COLUMN session_started_at BIGINT;
ALTER TABLE tokens ADD COLUMN refreshed_at BIGINT;
ALTER TABLE tokens ADD COLUMN replaced_by TEXT;

UPDATE tokens SET family_id = id, session_started_at = created_at;

ALTER TABLE tokens ALTER COLUMN family_id SET NOT NULL;
ALTER TABLE tokens ALTER COLUMN session_started_at SET NOT NULL;

-- Revoking a family (reuse detected) and the purge's "is the family alive".
CREATE INDEX tokens_family_idx ON tokens (family_id);
-- The purge of tokens revoked long ago.
CREATE INDEX tokens_revoked_idx ON tokens (revoked_at);
