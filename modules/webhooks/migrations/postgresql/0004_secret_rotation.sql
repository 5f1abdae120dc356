-- Dual signatures after a secret rotation (docs/modules/webhooks.md,
-- "Rotating the secret"). `previous_secret`: the secret rotate-secret
-- replaced, sealed exactly like `secret` (SecretBox, "webhook:<id>"), still
-- signing beside the new one until `previous_secret_until` (microseconds
-- since the epoch); both NULL when there is none. A PATCH of `secret`
-- clears them; the hourly "forget-secrets" job clears expired ones.
ALTER TABLE webhooks ADD COLUMN previous_secret TEXT;
ALTER TABLE webhooks ADD COLUMN previous_secret_until BIGINT;
-- The sweep of expired previous secrets: only webhooks with one are in it.
CREATE INDEX webhooks_previous_secret ON webhooks (previous_secret_until)
  WHERE previous_secret_until IS NOT NULL;
