-- API keys (decisions §15, issue 24): a company's integrations authenticate
-- with keys, not with a person's password. Timestamps are BIGINT
-- microseconds since the epoch (UTC).
--   key_hash      SHA-256 hex of the key ("rk_" + 32 random bytes): the key
--                 itself is shown once, at creation, and never stored
--   key_prefix    its first 11 characters, shown everywhere for recognition
--   scopes        the JSON array of its scopes
--   created_by    the user who made it; no reference: the key outlives the
--                 creator's membership (it is the company's, not theirs)
--   expires_at    NULL: never
--   last_used_at  written at most once a minute, off the request's path
-- A revoked key is deleted: nothing can bring it back.

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  key_hash TEXT NOT NULL UNIQUE,
  key_prefix TEXT NOT NULL,
  scopes TEXT NOT NULL,
  created_by TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT,
  last_used_at BIGINT
);

-- A company's keys, newest first (GET /api-keys).
CREATE INDEX api_keys_company_idx ON api_keys (company_id, created_at, id);
