-- Each tag row carries its record's created_at (copied when the row is
-- written; it never changes), indexed after the tag: a list filtered by one
-- tag alone counts its matches and takes its newest-first page from this
-- index, without reading the records it does not return
-- (docs/modules/contacts.md, "The tag filter").
ALTER TABLE contact_tags ADD COLUMN created_at BIGINT NOT NULL DEFAULT 0;
UPDATE contact_tags t SET created_at = r.created_at FROM contacts r WHERE r.id = t.contact_id;
ALTER TABLE contact_tags ALTER COLUMN created_at DROP DEFAULT;
CREATE INDEX contact_tags_ordered ON contact_tags (company_id, tag_lower, created_at, contact_id);
DROP INDEX contact_tags_lookup;
