-- Webhooks of a tenant company, their subscriptions and their deliveries
-- (docs/modules/webhooks.md, "Storage").

-- A company's HTTPS endpoints. `events` is the JSON array of subscribed types
-- as the client sent them (order kept, duplicates removed); `secret` is the
-- signing secret sealed by the host's SecretBox under "webhook:<id>".
CREATE TABLE webhooks (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL,
  url TEXT NOT NULL,
  events TEXT NOT NULL,
  secret TEXT NOT NULL,
  is_active BOOLEAN NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
-- The list (newest first) and every lookup of a tenant's webhook.
CREATE INDEX webhooks_created ON webhooks (company_id, created_at, id);

-- The fan-out's lookup: which webhooks of a company take an event type.
-- Rewritten with the webhook's events.
CREATE TABLE webhook_subscriptions (
  company_id TEXT NOT NULL,
  event TEXT NOT NULL,
  webhook_id TEXT NOT NULL,
  PRIMARY KEY (company_id, event, webhook_id)
);
CREATE INDEX webhook_subscriptions_webhook ON webhook_subscriptions (company_id, webhook_id);

-- The outbox: one row per (event occurrence, subscribed active webhook),
-- written in the emitting transaction. `payload` is the envelope exactly as
-- sent; `next_attempt_at` is when a worker may take it (NULL: never
-- automatically); `lease`/`lease_until` name the worker holding it.
CREATE TABLE webhook_deliveries (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL,
  webhook_id TEXT NOT NULL,
  envelope_id TEXT NOT NULL,
  event TEXT NOT NULL,
  event_id TEXT,
  payload TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  response_code INTEGER,
  response_body TEXT,
  created_at BIGINT NOT NULL,
  last_attempt_at BIGINT,
  next_attempt_at BIGINT,
  lease TEXT,
  lease_until BIGINT
);
-- A webhook's deliveries, newest first, unfiltered or by status or event;
-- also the pause, resume and delete of a webhook's deliveries.
CREATE INDEX webhook_deliveries_list ON webhook_deliveries (company_id, webhook_id, created_at, id);
CREATE INDEX webhook_deliveries_status
  ON webhook_deliveries (company_id, webhook_id, status, created_at, id);
CREATE INDEX webhook_deliveries_event
  ON webhook_deliveries (company_id, webhook_id, event, created_at, id);
-- The workers' claim: only deliveries a worker may take are in it.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at)
  WHERE status = 'pending' AND next_attempt_at IS NOT NULL;
-- The retention purge of finished deliveries, oldest first.
CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (created_at)
  WHERE status <> 'pending';
-- The sweep of pings a crash left pending (a ping has no event_id).
CREATE INDEX webhook_deliveries_pings ON webhook_deliveries (lease_until)
  WHERE status = 'pending' AND event_id IS NULL;
