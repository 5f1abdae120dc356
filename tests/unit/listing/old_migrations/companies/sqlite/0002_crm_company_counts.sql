-- The exact number of each tenant's crm_companies rows, so the unfiltered list
-- reads meta.total from one row instead of counting every row of the tenant
-- (docs/modules/companies.md, "The row count"). Kept by the triggers below; a
-- tenant without a row has no crm_companies.
CREATE TABLE crm_company_counts (
  company_id TEXT PRIMARY KEY,
  total BIGINT NOT NULL
);
INSERT INTO crm_company_counts (company_id, total)
  SELECT company_id, COUNT(*) FROM crm_companies GROUP BY company_id;
CREATE TRIGGER crm_company_counts_insert AFTER INSERT ON crm_companies BEGIN
  INSERT INTO crm_company_counts (company_id, total) VALUES (new.company_id, 1)
    ON CONFLICT (company_id) DO UPDATE SET total = total + 1;
END;
CREATE TRIGGER crm_company_counts_delete AFTER DELETE ON crm_companies BEGIN
  INSERT INTO crm_company_counts (company_id, total) VALUES (old.company_id, -1)
    ON CONFLICT (company_id) DO UPDATE SET total = total - 1;
END;
