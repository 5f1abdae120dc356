-- A stamp per company and record type that changes with every change of its
-- custom-field definitions (issue 25): a record write reads this one row in
-- its transaction, under the shared lock a definition change takes
-- exclusively, and reads the definitions themselves only when the stamp
-- differs from the one its instance last read them under
-- (sdk/src/custom_fields/routes.cpp, DefinitionRoutes::forRecordWrite).
-- The trigger changes it for every insert, update and delete of a
-- definition, whoever writes it (another instance, a script): a fresh random
-- value each time, never a counter, so a stamp seen in a transaction that
-- was rolled back is never seen again with other definitions.
CREATE TABLE custom_field_versions (
  company_id TEXT NOT NULL,
  record_type TEXT NOT NULL,
  stamp TEXT NOT NULL,
  PRIMARY KEY (company_id, record_type)
);
INSERT INTO custom_field_versions (company_id, record_type, stamp)
  SELECT company_id, record_type, md5(random()::text || clock_timestamp()::text)
  FROM custom_field_definitions GROUP BY company_id, record_type;
CREATE FUNCTION custom_field_versions_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    INSERT INTO custom_field_versions (company_id, record_type, stamp)
      VALUES (OLD.company_id, OLD.record_type, md5(random()::text || clock_timestamp()::text))
      ON CONFLICT (company_id, record_type) DO UPDATE SET stamp = EXCLUDED.stamp;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO custom_field_versions (company_id, record_type, stamp)
      VALUES (NEW.company_id, NEW.record_type, md5(random()::text || clock_timestamp()::text))
      ON CONFLICT (company_id, record_type) DO UPDATE SET stamp = EXCLUDED.stamp;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER custom_field_versions_touch
  AFTER INSERT OR UPDATE OR DELETE ON custom_field_definitions
  FOR EACH ROW EXECUTE FUNCTION custom_field_versions_touch();
