-- Accounts and tenancy: users, tenant companies, memberships, bearer tokens.
-- Timestamps are BIGINT microseconds since the epoch (UTC); booleans are
-- BOOLEAN on PostgreSQL (INTEGER 0/1 in the SQLite twin of this file).

CREATE TABLE users (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  -- As the user typed it (trimmed); email_lower is what uniqueness and login use.
  email TEXT NOT NULL,
  email_lower TEXT NOT NULL UNIQUE,
  -- PHC-encoded argon2id; NULL for users without a password (social login).
  password_hash TEXT,
  disabled BOOLEAN NOT NULL DEFAULT FALSE,
  two_factor_enabled BOOLEAN NOT NULL DEFAULT FALSE,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE TABLE companies (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE TABLE memberships (
  company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  created_at BIGINT NOT NULL,
  PRIMARY KEY (company_id, user_id)
);

-- "Companies of a user, newest membership first" and "first company at login".
CREATE INDEX memberships_user_idx ON memberships (user_id, created_at);

CREATE TABLE tokens (
  id TEXT PRIMARY KEY,
  -- SHA-256 hex of the bearer token; the token itself is never stored.
  token_hash TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  company_id TEXT NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  remember BOOLEAN NOT NULL DEFAULT FALSE,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  revoked_at BIGINT
);

-- Revoking every token of a user (password reset, password change).
CREATE INDEX tokens_user_idx ON tokens (user_id);
-- The periodic purge of long-expired tokens.
CREATE INDEX tokens_expires_idx ON tokens (expires_at);
