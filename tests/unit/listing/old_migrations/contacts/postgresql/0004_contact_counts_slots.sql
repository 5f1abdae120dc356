-- contact_counts spread over slots (summed on read), like contact_tag_counts (0003): concurrent
-- creates and deletes of one tenant's records then rarely wait for each
-- other's count row (docs/modules/contacts.md, "The row count").
ALTER TABLE contact_counts ADD COLUMN slot SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE contact_counts DROP CONSTRAINT contact_counts_pkey;
ALTER TABLE contact_counts ADD PRIMARY KEY (company_id, slot);
ALTER TABLE contact_counts ALTER COLUMN slot DROP DEFAULT;

-- One of 8 slots at random per change (a slot may go below 0; the sum is exact).
CREATE OR REPLACE FUNCTION contact_counts_track() RETURNS trigger AS $$
DECLARE
  chosen SMALLINT := floor(random() * 8);
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO contact_counts AS c (company_id, slot, total) VALUES (NEW.company_id, chosen, 1)
      ON CONFLICT (company_id, slot) DO UPDATE SET total = c.total + 1;
    RETURN NULL;
  END IF;
  INSERT INTO contact_counts AS c (company_id, slot, total) VALUES (OLD.company_id, chosen, -1)
    ON CONFLICT (company_id, slot) DO UPDATE SET total = c.total - 1;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
