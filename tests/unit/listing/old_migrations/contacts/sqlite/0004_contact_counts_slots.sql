-- contact_counts spread over slots (summed on read), like contact_tag_counts (0003): concurrent
-- creates and deletes of one tenant's records then rarely wait for each
-- other's count row (docs/modules/contacts.md, "The row count").
-- SQLite has one writer at a time: one slot (0). The table is rebuilt, as
-- SQLite cannot change a primary key.
DROP TRIGGER contact_counts_insert;
DROP TRIGGER contact_counts_delete;
CREATE TABLE contact_counts_slotted (
  company_id TEXT NOT NULL,
  slot SMALLINT NOT NULL,
  total BIGINT NOT NULL,
  PRIMARY KEY (company_id, slot)
);
INSERT INTO contact_counts_slotted (company_id, slot, total) SELECT company_id, 0, total FROM contact_counts;
DROP TABLE contact_counts;
ALTER TABLE contact_counts_slotted RENAME TO contact_counts;
CREATE TRIGGER contact_counts_insert AFTER INSERT ON contacts BEGIN
  INSERT INTO contact_counts (company_id, slot, total) VALUES (new.company_id, 0, 1)
    ON CONFLICT (company_id, slot) DO UPDATE SET total = total + 1;
END;
CREATE TRIGGER contact_counts_delete AFTER DELETE ON contacts BEGIN
  INSERT INTO contact_counts (company_id, slot, total) VALUES (old.company_id, 0, -1)
    ON CONFLICT (company_id, slot) DO UPDATE SET total = total - 1;
END;
