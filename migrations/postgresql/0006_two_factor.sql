-- Two-factor login (decisions §4): TOTP secrets, recovery codes, login
-- challenges. Timestamps are BIGINT microseconds since the epoch (UTC);
-- booleans are BOOLEAN on PostgreSQL (INTEGER 0/1 in the SQLite twin).
-- users.two_factor_enabled (0002) stays the flag login reads; it is true
-- exactly when the user's secret here is confirmed.

CREATE TABLE two_factor_secrets (
  user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  -- The base32 TOTP secret sealed with the server key (SecretBox, context
  -- "totp:<user_id>"); never stored in clear.
  secret_sealed TEXT NOT NULL,
  -- NULL while pending (enabled, not yet confirmed with a code).
  confirmed_at BIGINT,
  -- The last accepted TOTP time step: a code of this step or an earlier
  -- one is refused (no replay).
  last_step BIGINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE TABLE two_factor_recovery_codes (
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  -- SHA-256 hex of "recovery:<user_id>:<normalised code>"; never the code.
  code_hash TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  used_at BIGINT,
  PRIMARY KEY (user_id, code_hash)
);

CREATE TABLE two_factor_challenges (
  -- SHA-256 hex of the challenge id the client holds (challenge_id,
  -- two_factor_token); the id itself is never stored.
  id_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  remember BOOLEAN NOT NULL DEFAULT FALSE,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  failures INTEGER NOT NULL DEFAULT 0,
  -- The e-mailed code (POST /auth/two-factor/resend), hashed with the
  -- challenge id, and when it stops working.
  resend_code_hash TEXT,
  resend_expires_at BIGINT,
  last_resend_at BIGINT,
  used_at BIGINT
);

-- The per-user budget of wrong codes across challenges.
CREATE INDEX two_factor_challenges_user_idx ON two_factor_challenges (user_id, created_at);
-- The purge of expired challenges.
CREATE INDEX two_factor_challenges_expires_idx ON two_factor_challenges (expires_at);
