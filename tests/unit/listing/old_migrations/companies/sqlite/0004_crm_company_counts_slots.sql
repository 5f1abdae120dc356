-- crm_company_counts spread over slots (summed on read), like crm_company_tag_counts (0003): concurrent
-- creates and deletes of one tenant's records then rarely wait for each
-- other's count row (docs/modules/contacts.md, "The row count").
-- SQLite has one writer at a time: one slot (0). The table is rebuilt, as
-- SQLite cannot change a primary key.
DROP TRIGGER crm_company_counts_insert;
DROP TRIGGER crm_company_counts_delete;
CREATE TABLE crm_company_counts_slotted (
  company_id TEXT NOT NULL,
  slot SMALLINT NOT NULL,
  total BIGINT NOT NULL,
  PRIMARY KEY (company_id, slot)
);
INSERT INTO crm_company_counts_slotted (company_id, slot, total) SELECT company_id, 0, total FROM crm_company_counts;
DROP TABLE crm_company_counts;
ALTER TABLE crm_company_counts_slotted RENAME TO crm_company_counts;
CREATE TRIGGER crm_company_counts_insert AFTER INSERT ON crm_companies BEGIN
  INSERT INTO crm_company_counts (company_id, slot, total) VALUES (new.company_id, 0, 1)
    ON CONFLICT (company_id, slot) DO UPDATE SET total = total + 1;
END;
CREATE TRIGGER crm_company_counts_delete AFTER DELETE ON crm_companies BEGIN
  INSERT INTO crm_company_counts (company_id, slot, total) VALUES (old.company_id, 0, -1)
    ON CONFLICT (company_id, slot) DO UPDATE SET total = total - 1;
END;
