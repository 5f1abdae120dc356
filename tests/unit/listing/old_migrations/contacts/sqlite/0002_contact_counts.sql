-- The exact number of each tenant's contacts rows, so the unfiltered list
-- reads meta.total from one row instead of counting every row of the tenant
-- (docs/modules/contacts.md, "The row count"). Kept by the triggers below; a
-- tenant without a row has no contacts.
CREATE TABLE contact_counts (
  company_id TEXT PRIMARY KEY,
  total BIGINT NOT NULL
);
INSERT INTO contact_counts (company_id, total)
  SELECT company_id, COUNT(*) FROM contacts GROUP BY company_id;
CREATE TRIGGER contact_counts_insert AFTER INSERT ON contacts BEGIN
  INSERT INTO contact_counts (company_id, total) VALUES (new.company_id, 1)
    ON CONFLICT (company_id) DO UPDATE SET total = total + 1;
END;
CREATE TRIGGER contact_counts_delete AFTER DELETE ON contacts BEGIN
  INSERT INTO contact_counts (company_id, total) VALUES (old.company_id, -1)
    ON CONFLICT (company_id) DO UPDATE SET total = total - 1;
END;
