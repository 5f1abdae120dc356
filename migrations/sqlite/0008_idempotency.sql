-- Idempotency keys (docs/api-choices.md "Safe retries: Idempotency-Key"):
-- one row per (company, user, key) for idempotency.keep_hours. A request
-- holds its row while it runs (state 'running', lease_until); a 2xx answer
-- is then kept (state 'done') and replayed to a repeat with the same body.
-- The answer is sealed with the server's key (SecretBox, context
-- "idempotency:<company_id>:<user_id>:<key_hash>"): it may hold tokens or
-- recovery codes. The key itself is kept as SHA-256 hex.
CREATE TABLE idempotency_keys (
  company_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  key_hash TEXT NOT NULL,
  -- SHA-256 hex of method, path and body: the same key with another request is a 422.
  fingerprint TEXT NOT NULL,
  state TEXT NOT NULL,
  -- A running request's claim: its random holder id, and when another
  -- request may take the key over (the first one's instance died).
  holder TEXT NOT NULL,
  lease_until BIGINT NOT NULL,
  response_sealed TEXT,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  PRIMARY KEY (company_id, user_id, key_hash)
);

-- The purge of expired keys.
CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at);
