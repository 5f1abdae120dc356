-- E-mail verification (docs/accounts.md "E-mail verification") and the
-- hardening of social login against pre-hijacking (docs/social-login.md).
-- Timestamps are BIGINT microseconds since the epoch (UTC).

-- When the user proved they receive mail at `email`: a verification link, a
-- password reset by e-mail, or a sign-up through a provider that vouched for
-- the address. NULL: never proved (existing users start so), and again
-- after every change of address.
ALTER TABLE users ADD COLUMN email_verified_at BIGINT;

-- Verification tokens: single use, valid auth.email_verification_ttl
-- seconds, stored only as the SHA-256 hex of the token mailed to the user.
CREATE TABLE email_verifications (
  id TEXT PRIMARY KEY,
  -- SHA-256 hex of the token; the token itself is never stored.
  token_hash TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  -- The address the token was mailed to: it proves only that address, and
  -- dies when the user's e-mail changes.
  email_lower TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  used_at BIGINT
);

-- A user's tokens (a new request deletes the older ones).
CREATE INDEX email_verifications_user_idx ON email_verifications (user_id, created_at);
-- The hourly purge of expired tokens.
CREATE INDEX email_verifications_expires_idx ON email_verifications (expires_at);

-- A social-login state is bound to the client that asked for it: the
-- SHA-256 hex of the random value of the binding cookie, and the SHA-256
-- hex of the client's address key (ratelimit/ClientKey.h) for clients
-- without cookies. States pending at the upgrade have neither and are
-- refused (the user starts again; a state lives 10 minutes).
ALTER TABLE social_states ADD COLUMN binding_hash TEXT;
ALTER TABLE social_states ADD COLUMN client_hash TEXT;
