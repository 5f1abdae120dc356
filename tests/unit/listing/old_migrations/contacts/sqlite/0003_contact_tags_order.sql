-- The tag filter alone (the commonest filter of a list) costs the same however
-- many records carry the tag (docs/modules/contacts.md, "The tag filter"):
--
-- 1. Each tag row carries its record's created_at (copied when the row is
--    written; it never changes), indexed after the tag, so the newest-first
--    page takes its ids from this index and reads only those records.
ALTER TABLE contact_tags ADD COLUMN created_at BIGINT NOT NULL DEFAULT 0;
UPDATE contact_tags SET created_at = (SELECT r.created_at FROM contacts r WHERE r.id = contact_tags.contact_id);
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
-- SQLite has one writer at a time: one slot (0) is enough.
CREATE TRIGGER contact_tag_counts_insert AFTER INSERT ON contact_tags BEGIN
  INSERT INTO contact_tag_counts (company_id, tag_lower, slot, total)
    VALUES (new.company_id, new.tag_lower, 0, 1)
    ON CONFLICT (company_id, tag_lower, slot) DO UPDATE SET total = total + 1;
END;
CREATE TRIGGER contact_tag_counts_delete AFTER DELETE ON contact_tags BEGIN
  INSERT INTO contact_tag_counts (company_id, tag_lower, slot, total)
    VALUES (old.company_id, old.tag_lower, 0, -1)
    ON CONFLICT (company_id, tag_lower, slot) DO UPDATE SET total = total - 1;
  DELETE FROM contact_tag_counts
    WHERE company_id = old.company_id AND tag_lower = old.tag_lower AND slot = 0 AND total = 0;
END;
