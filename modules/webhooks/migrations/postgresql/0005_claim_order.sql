-- The claim of a company's due deliveries in its whole order (fresh before
-- backlog, oldest due first, then oldest written), so it reads as many rows
-- as it takes (issue 25: with 0003's index, which ends at next_attempt_at,
-- every claim read and sorted all of the company's due deliveries: 20 ms at
-- 13,000, and the deliveries fell behind the creates for good). It serves
-- the companies' walk too (company_id first), in 0003's index's place.
CREATE INDEX webhook_deliveries_due_order
  ON webhook_deliveries (company_id, backlog, next_attempt_at, created_at)
  WHERE status = 'pending' AND next_attempt_at IS NOT NULL;
DROP INDEX webhook_deliveries_due_company;
