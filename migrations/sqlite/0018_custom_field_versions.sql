-- A stamp per company and record type that changes with every change of its
-- custom-field definitions (issue 25): a record write reads this one row in
-- its transaction and reads the definitions themselves only when the stamp
-- differs from the one its instance last read them under
-- (sdk/src/custom_fields/routes.cpp, DefinitionRoutes::forRecordWrite).
-- The triggers change it for every insert, update and delete of a
-- definition, whoever writes it (another instance, a script): a fresh random
-- value each time, never a counter, so a stamp seen in a transaction that
-- was rolled back is never seen again with other definitions.
CREATE TABLE custom_field_versions (
  company_id TEXT NOT NULL,
  record_type TEXT NOT NULL,
  stamp TEXT NOT NULL,
  PRIMARY KEY (company_id, record_type)
) WITHOUT ROWID;
INSERT INTO custom_field_versions (company_id, record_type, stamp)
  SELECT company_id, record_type, lower(hex(randomblob(16))) FROM custom_field_definitions
  GROUP BY company_id, record_type;
CREATE TRIGGER custom_field_versions_insert AFTER INSERT ON custom_field_definitions BEGIN
  INSERT INTO custom_field_versions (company_id, record_type, stamp)
    VALUES (new.company_id, new.record_type, lower(hex(randomblob(16))))
    ON CONFLICT (company_id, record_type) DO UPDATE SET stamp = excluded.stamp;
END;
CREATE TRIGGER custom_field_versions_update AFTER UPDATE ON custom_field_definitions BEGIN
  INSERT INTO custom_field_versions (company_id, record_type, stamp)
    VALUES (old.company_id, old.record_type, lower(hex(randomblob(16))))
    ON CONFLICT (company_id, record_type) DO UPDATE SET stamp = excluded.stamp;
  INSERT INTO custom_field_versions (company_id, record_type, stamp)
    VALUES (new.company_id, new.record_type, lower(hex(randomblob(16))))
    ON CONFLICT (company_id, record_type) DO UPDATE SET stamp = excluded.stamp;
END;
CREATE TRIGGER custom_field_versions_delete AFTER DELETE ON custom_field_definitions BEGIN
  INSERT INTO custom_field_versions (company_id, record_type, stamp)
    VALUES (old.company_id, old.record_type, lower(hex(randomblob(16))))
    ON CONFLICT (company_id, record_type) DO UPDATE SET stamp = excluded.stamp;
END;
