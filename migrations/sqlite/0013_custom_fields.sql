-- Custom fields (decisions §14; sdk/include/rapport/custom_fields.h and
-- docs/custom-fields.md): each company's own fields on the record types that
-- opt in. The record engine (the SDK) reads and writes these tables for every
-- module; the host owns them because they are shared by every record type.

-- One row per definition. id ("cf_...") is fresh for each creation: a field
-- deleted and created again under the same key never sees the old values.
-- A deleted definition keeps its row (deleted_at) until the purge job has
-- removed its values; reads only ever see live definitions.
CREATE TABLE custom_field_definitions (
  id TEXT PRIMARY KEY,
  company_id TEXT NOT NULL,
  record_type TEXT NOT NULL,
  field_key TEXT NOT NULL,
  label TEXT NOT NULL,
  type TEXT NOT NULL,
  description TEXT,
  required INTEGER NOT NULL,
  is_unique INTEGER NOT NULL,
  -- [{"value", "label"}] for select types, [] otherwise.
  options TEXT NOT NULL DEFAULT '[]',
  -- The default as JSON text; NULL: none.
  default_value TEXT,
  -- Reference fields: the record type the value points to.
  target TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  deleted_at BIGINT
);
CREATE UNIQUE INDEX custom_field_definitions_key
  ON custom_field_definitions (company_id, record_type, field_key) WHERE deleted_at IS NULL;
CREATE INDEX custom_field_definitions_deleted
  ON custom_field_definitions (deleted_at) WHERE deleted_at IS NOT NULL;

-- The values as filters and sorts read them: one row per set value of a
-- record (a multi_select: one per option), typed. v_text: text types
-- lower-cased (text, email, url, phone), select and multi_select values,
-- dates, user and reference ids; v_num: number, money, boolean (0/1),
-- decimal (x 1,000,000) and datetime (UTC microseconds); v_long: long_text,
-- lower-cased (not indexed). created_at is the record's, so an equality
-- walks its matches in the lists' default order.
CREATE TABLE custom_field_values (
  company_id TEXT NOT NULL,
  field_id TEXT NOT NULL,
  record_id TEXT NOT NULL,
  v_text TEXT,
  v_num BIGINT,
  v_long TEXT,
  created_at BIGINT NOT NULL
);
-- A record's rows (rewrite, delete, the sort's records without a value).
-- The record first: a record's rows are written together, onto one page of
-- this index rather than one page per field (bench/results/custom-fields.md).
CREATE INDEX custom_field_values_record ON custom_field_values (record_id, field_id);
-- Filters, sorts and a field's rows, one index per value type; each row is
-- in one of them. No company_id: a field id belongs to one company.
CREATE INDEX custom_field_values_text
  ON custom_field_values (field_id, v_text, created_at, record_id)
  WHERE v_text IS NOT NULL;
CREATE INDEX custom_field_values_num
  ON custom_field_values (field_id, v_num, created_at, record_id)
  WHERE v_num IS NOT NULL;

-- The values of unique fields: the primary key refuses a second record with
-- the same value (409), in the write's own transaction. value: the text
-- lower-cased, or the number in decimal.
CREATE TABLE custom_field_unique (
  field_id TEXT NOT NULL,
  value TEXT NOT NULL,
  record_id TEXT NOT NULL,
  PRIMARY KEY (field_id, value)
);
CREATE INDEX custom_field_unique_record ON custom_field_unique (field_id, record_id);
