-- The exact number of each tenant's crm_companies rows, so the unfiltered list
-- reads meta.total from one row instead of counting every row of the tenant
-- (docs/modules/companies.md, "The row count"). Kept by the trigger below; a
-- tenant without a row has no crm_companies.
CREATE TABLE crm_company_counts (
  company_id TEXT PRIMARY KEY,
  total BIGINT NOT NULL
);
INSERT INTO crm_company_counts (company_id, total)
  SELECT company_id, COUNT(*) FROM crm_companies GROUP BY company_id;

-- One function for both events: +1 on insert, -1 on delete (upserts, so the
-- first row of a tenant creates its count).
CREATE FUNCTION crm_company_counts_track() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO crm_company_counts (company_id, total) VALUES (NEW.company_id, 1)
      ON CONFLICT (company_id) DO UPDATE SET total = crm_company_counts.total + 1;
    RETURN NEW;
  END IF;
  INSERT INTO crm_company_counts (company_id, total) VALUES (OLD.company_id, -1)
    ON CONFLICT (company_id) DO UPDATE SET total = crm_company_counts.total - 1;
  RETURN OLD;
END;
$$ LANGUAGE plpgsql;

-- One trigger for INSERT OR DELETE, and the last statement of the file: the
-- migration splitter (host/storage/SqlSplitter.cpp) reads every CREATE
-- TRIGGER as an SQLite one, whose statement ends only at "END;", so a
-- PostgreSQL CREATE TRIGGER runs whole only when nothing follows it.
CREATE TRIGGER crm_company_counts_track AFTER INSERT OR DELETE ON crm_companies
  FOR EACH ROW EXECUTE FUNCTION crm_company_counts_track();
