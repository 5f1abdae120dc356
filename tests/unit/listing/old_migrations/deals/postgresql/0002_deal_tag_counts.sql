-- The exact number of each tenant's deals per tag, spread over slots and kept
-- by row triggers on deal_tags, so the tag filter's meta.total reads a few
-- indexed rows (docs/modules/contacts.md, "The tag filter"). A slot row is
-- removed when it comes back to 0. No row: no deals.
CREATE TABLE deal_tag_counts (
  company_id TEXT NOT NULL,
  tag_lower TEXT NOT NULL,
  slot SMALLINT NOT NULL,
  total BIGINT NOT NULL,
  PRIMARY KEY (company_id, tag_lower, slot)
);
-- One of 8 slots at random per change (a slot may go below 0; the sum is exact).
CREATE FUNCTION deal_tag_counts_track() RETURNS trigger AS $$
DECLARE
  chosen SMALLINT := floor(random() * 8);
  row_company TEXT;
  row_tag TEXT;
  delta BIGINT;
BEGIN
  IF TG_OP = 'INSERT' THEN
    row_company := NEW.company_id; row_tag := NEW.tag_lower; delta := 1;
  ELSE
    row_company := OLD.company_id; row_tag := OLD.tag_lower; delta := -1;
  END IF;
  INSERT INTO deal_tag_counts AS c (company_id, tag_lower, slot, total)
    VALUES (row_company, row_tag, chosen, delta)
    ON CONFLICT (company_id, tag_lower, slot) DO UPDATE SET total = c.total + delta;
  DELETE FROM deal_tag_counts
    WHERE company_id = row_company AND tag_lower = row_tag AND slot = chosen AND total = 0;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER deal_tag_counts_track AFTER INSERT OR DELETE ON deal_tags
  FOR EACH ROW EXECUTE FUNCTION deal_tag_counts_track();
