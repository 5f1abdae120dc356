-- Social login (decisions §5): pending authorization states, one-time
-- exchange codes (variant B) and the identities linked to users.
-- Timestamps are BIGINT microseconds since the epoch (UTC). Secrets are never
-- stored in clear: states and exchange codes only as SHA-256 hex, the PKCE
-- verifier sealed with the server's key (SecretBox).

CREATE TABLE social_states (
  -- SHA-256 hex of the state handed to the client.
  state_hash TEXT PRIMARY KEY,
  provider TEXT NOT NULL,
  -- The PKCE code verifier, sealed under the context "social-state:<state_hash>".
  code_verifier_sealed TEXT NOT NULL,
  redirect_uri TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  -- Set when a callback consumed it (single use).
  used_at BIGINT
);

-- The purge of expired states.
CREATE INDEX social_states_expires_idx ON social_states (expires_at);

CREATE TABLE social_exchange_codes (
  -- SHA-256 hex of the exchange code handed to the client.
  code_hash TEXT PRIMARY KEY,
  provider TEXT NOT NULL,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  used_at BIGINT
);

CREATE INDEX social_exchange_codes_expires_idx ON social_exchange_codes (expires_at);

CREATE TABLE social_identities (
  provider TEXT NOT NULL,
  -- The provider's stable user id (OIDC sub, GitHub's numeric id).
  subject TEXT NOT NULL,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  -- The address the provider gave at the last login, for support.
  email TEXT,
  created_at BIGINT NOT NULL,
  last_login_at BIGINT NOT NULL,
  PRIMARY KEY (provider, subject)
);

CREATE INDEX social_identities_user_idx ON social_identities (user_id);
