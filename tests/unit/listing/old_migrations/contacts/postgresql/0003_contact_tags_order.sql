-- The tag filter alone (the commonest filter of a list) costs the same however
-- many records carry the tag (docs/modules/contacts.md, "The tag filter"):
--
-- 1. Each tag row carries its record's created_at (copied when the row is
--    written; it never changes), indexed after the tag, so the newest-first
--    page takes its ids from this index and reads only those records.
ALTER TABLE contact_tags ADD COLUMN created_at BIGINT NOT NULL DEFAULT 0;
UPDATE contact_tags t SET created_at = r.created_at FROM contacts r WHERE r.id = t.contact_id;
ALTER TABLE contact_tags ALTER COLUMN created_at DROP DEFAULT;
CREATE INDEX contact_tags_ordered ON contact_tags (company_id, tag_lower, created_at, contact_id);
DROP INDEX contact_tags_lookup;

-- 2. The exact number of each tenant's records per tag, kept by row triggers
--    on contact_tags, so meta.total reads a few indexed rows. The count is spread
--    over slots (summed on read) so that concurrent writers of one tenant
--    rarely wait for each other's count row ("The row count", same page); a slot
--    row is removed when it comes back to 0. No row: no records.
CREATE TABLE contact_tag_counts (
  company_id TEXT NOT NULL,
  tag_lower TEXT NOT NULL,
  slot SMALLINT NOT NULL,
  total BIGINT NOT NULL,
  PRIMARY KEY (company_id, tag_lower, slot)
);
INSERT INTO contact_tag_counts (company_id, tag_lower, slot, total)
  SELECT company_id, tag_lower, 0, COUNT(*) FROM contact_tags GROUP BY company_id, tag_lower;
-- One of 8 slots at random per change (a slot may go below 0; the sum is exact).
CREATE FUNCTION contact_tag_counts_track() RETURNS trigger AS $$
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
  INSERT INTO contact_tag_counts AS c (company_id, tag_lower, slot, total)
    VALUES (row_company, row_tag, chosen, delta)
    ON CONFLICT (company_id, tag_lower, slot) DO UPDATE SET total = c.total + delta;
  DELETE FROM contact_tag_counts
    WHERE company_id = row_company AND tag_lower = row_tag AND slot = chosen AND total = 0;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER contact_tag_counts_track AFTER INSERT OR DELETE ON contact_tags
  FOR EACH ROW EXECUTE FUNCTION contact_tag_counts_track();
