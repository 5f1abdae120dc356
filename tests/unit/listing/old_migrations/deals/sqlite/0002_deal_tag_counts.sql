-- The exact number of each tenant's deals per tag, kept by row triggers on
-- deal_tags, so the tag filter's meta.total reads a few indexed rows
-- (docs/modules/contacts.md, "The tag filter"). A slot row is removed when it
-- comes back to 0. No row: no deals. SQLite has one writer at a time: slot 0.
CREATE TABLE deal_tag_counts (
  company_id TEXT NOT NULL,
  tag_lower TEXT NOT NULL,
  slot SMALLINT NOT NULL,
  total BIGINT NOT NULL,
  PRIMARY KEY (company_id, tag_lower, slot)
);
CREATE TRIGGER deal_tag_counts_insert AFTER INSERT ON deal_tags BEGIN
  INSERT INTO deal_tag_counts (company_id, tag_lower, slot, total)
    VALUES (new.company_id, new.tag_lower, 0, 1)
    ON CONFLICT (company_id, tag_lower, slot) DO UPDATE SET total = total + 1;
END;
CREATE TRIGGER deal_tag_counts_delete AFTER DELETE ON deal_tags BEGIN
  INSERT INTO deal_tag_counts (company_id, tag_lower, slot, total)
    VALUES (old.company_id, old.tag_lower, 0, -1)
    ON CONFLICT (company_id, tag_lower, slot) DO UPDATE SET total = total - 1;
  DELETE FROM deal_tag_counts
    WHERE company_id = old.company_id AND tag_lower = old.tag_lower AND slot = 0 AND total = 0;
END;
