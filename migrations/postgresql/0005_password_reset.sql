-- Password reset tokens (decisions §6): single use, valid auth.reset_ttl
-- seconds, stored only as the SHA-256 hex of the token mailed to the user.
-- Timestamps are BIGINT microseconds since the epoch (UTC).

CREATE TABLE password_resets (
  id TEXT PRIMARY KEY,
  -- SHA-256 hex of the reset token; the token itself is never stored.
  token_hash TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  -- The address the token was mailed to: reset-password must name it, and
  -- the token dies when the user's e-mail changes.
  email_lower TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  used_at BIGINT
);

-- A user's tokens (a new request or a reset deletes the others).
CREATE INDEX password_resets_user_idx ON password_resets (user_id, created_at);
-- The hourly purge of expired tokens.
CREATE INDEX password_resets_expires_idx ON password_resets (expires_at);
