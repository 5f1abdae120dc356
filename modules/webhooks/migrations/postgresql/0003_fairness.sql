-- Fair delivery across companies (docs/modules/webhooks.md, "Fairness").
-- `backlog`: 1 for a delivery written by a replay or a backfill, 0 for a
-- fresh event's: a company's fresh deliveries are claimed before its backlog.
ALTER TABLE webhook_deliveries ADD COLUMN backlog INTEGER NOT NULL DEFAULT 0;
-- The claim, company by company: a company's due deliveries, fresh first,
-- oldest due first.
CREATE INDEX webhook_deliveries_due_company
  ON webhook_deliveries (company_id, backlog, next_attempt_at)
  WHERE status = 'pending' AND next_attempt_at IS NOT NULL;
-- The batches in flight (their leases), per company and per webhook: the
-- claim's concurrency caps count them.
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (company_id, webhook_id, lease)
  WHERE lease IS NOT NULL;
