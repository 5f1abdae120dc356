-- deals_count and deals_value of OPEN deals per pipeline and stage, shown on
-- the pipelines module's records through Registry::augment("pipeline")
-- (docs/modules/deals.md, "Pipeline counters"). The slotted-count shape of
-- contact_counts: the exact totals of a (pipeline, stage) are the sums of its
-- slots; a slot row that comes back to 0 deals and 0 cents is removed.
CREATE TABLE deal_stage_totals (
  company_id TEXT NOT NULL,
  pipeline_id TEXT NOT NULL,
  stage_id TEXT NOT NULL,
  slot SMALLINT NOT NULL,
  deals_count BIGINT NOT NULL,
  deals_value BIGINT NOT NULL,
  PRIMARY KEY (company_id, pipeline_id, stage_id, slot)
);

-- Adds a change (deals, cents) to one slot of a (pipeline, stage); a slot row
-- that comes back to 0 deals and 0 cents is removed.
CREATE FUNCTION deal_stage_totals_add(row_company TEXT, row_pipeline TEXT, row_stage TEXT,
                                      chosen SMALLINT, deals BIGINT, cents BIGINT)
RETURNS void AS $$
BEGIN
  INSERT INTO deal_stage_totals AS t
      (company_id, pipeline_id, stage_id, slot, deals_count, deals_value)
    VALUES (row_company, row_pipeline, row_stage, chosen, deals, cents)
    ON CONFLICT (company_id, pipeline_id, stage_id, slot) DO UPDATE
      SET deals_count = t.deals_count + deals, deals_value = t.deals_value + cents;
  DELETE FROM deal_stage_totals
    WHERE company_id = row_company AND pipeline_id = row_pipeline AND stage_id = row_stage
      AND slot = chosen AND deals_count = 0 AND deals_value = 0;
END;
$$ LANGUAGE plpgsql;

-- After an insert, a delete, or an update of status, stage_id, pipeline_id or
-- value: subtract the old row's contribution if it was open, add the new
-- row's if it is open. One of 8 slots at random per change.
--
-- An update changes two slot rows, and they are always locked in the order
-- of (pipeline_id, stage_id): a move from stage A to B and one from B to A
-- running at once would otherwise each lock one row and wait for the other's
-- (a deadlock every few moves under load, bench/results: deal_stage_move).
CREATE FUNCTION deal_stage_totals_track() RETURNS trigger AS $$
DECLARE
  chosen SMALLINT := floor(random() * 8);
  old_open BOOLEAN := FALSE;
  new_open BOOLEAN := FALSE;
BEGIN
  IF TG_OP <> 'INSERT' THEN old_open := OLD.status = 'open'; END IF;
  IF TG_OP <> 'DELETE' THEN new_open := NEW.status = 'open'; END IF;
  IF TG_OP = 'UPDATE' THEN
    IF OLD.status = NEW.status AND OLD.pipeline_id = NEW.pipeline_id
       AND OLD.stage_id = NEW.stage_id AND OLD.value = NEW.value THEN
      RETURN NULL;
    END IF;
    IF new_open AND (NEW.pipeline_id, NEW.stage_id) < (OLD.pipeline_id, OLD.stage_id) THEN
      PERFORM deal_stage_totals_add(NEW.company_id, NEW.pipeline_id, NEW.stage_id, chosen, 1, NEW.value);
      new_open := FALSE;
    END IF;
  END IF;
  IF old_open THEN
    PERFORM deal_stage_totals_add(OLD.company_id, OLD.pipeline_id, OLD.stage_id, chosen, -1, -OLD.value);
  END IF;
  IF new_open THEN
    PERFORM deal_stage_totals_add(NEW.company_id, NEW.pipeline_id, NEW.stage_id, chosen, 1, NEW.value);
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER deal_stage_totals_track
  AFTER INSERT OR DELETE OR UPDATE OF status, stage_id, pipeline_id, value ON deals
  FOR EACH ROW EXECUTE FUNCTION deal_stage_totals_track();
