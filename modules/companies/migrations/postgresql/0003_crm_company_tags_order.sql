-- Each tag row carries its record's created_at (copied when the row is
-- written; it never changes), indexed after the tag: a list filtered by one
-- tag alone counts its matches and takes its newest-first page from this
-- index, without reading the records it does not return
-- (docs/modules/companies.md, "The tag filter").
ALTER TABLE crm_company_tags ADD COLUMN created_at BIGINT NOT NULL DEFAULT 0;
UPDATE crm_company_tags t SET created_at = r.created_at FROM crm_companies r WHERE r.id = t.crm_company_id;
ALTER TABLE crm_company_tags ALTER COLUMN created_at DROP DEFAULT;
CREATE INDEX crm_company_tags_ordered ON crm_company_tags (company_id, tag_lower, created_at, crm_company_id);
DROP INDEX crm_company_tags_lookup;
