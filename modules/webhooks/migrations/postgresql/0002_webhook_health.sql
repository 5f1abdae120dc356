-- Self-healing webhooks (docs/modules/webhooks.md, "Self-healing").
-- `failing_since`: when the current streak of failed attempts began (set by
-- the first failed attempt after a success or the creation, cleared by a
-- success); `last_error`: what the latest failed attempt got ("HTTP 500",
-- "timed out", ...); `disabled_reason` and `disabled_at`: set when the
-- health check disabled the webhook ("failing"), cleared when it is active.
ALTER TABLE webhooks ADD COLUMN failing_since BIGINT;
ALTER TABLE webhooks ADD COLUMN last_error TEXT;
ALTER TABLE webhooks ADD COLUMN disabled_reason TEXT;
ALTER TABLE webhooks ADD COLUMN disabled_at BIGINT;
-- The health check's scan: only webhooks in a failing streak are in it.
CREATE INDEX webhooks_failing ON webhooks (failing_since) WHERE failing_since IS NOT NULL;
