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

-- After an insert, a delete, or an update of status, stage_id, pipeline_id or
-- value: subtract the old row's contribution if it was open, add the new
-- row's if it is open. One of 8 slots at random per change.
CREATE FUNCTION deal_stage_totals_track() RETURNS trigger AS $$
DECLARE
  chosen SMALLINT := floor(random() * 8);
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF OLD.status = NEW.status AND OLD.pipeline_id = NEW.pipeline_id
       AND OLD.stage_id = NEW.stage_id AND OLD.value = NEW.value THEN
      RETURN NULL;
    END IF;
  END IF;
  IF TG_OP <> 'INSERT' THEN
    IF OLD.status = 'open' THEN
      INSERT INTO deal_stage_totals AS t
          (company_id, pipeline_id, stage_id, slot, deals_count, deals_value)
        VALUES (OLD.company_id, OLD.pipeline_id, OLD.stage_id, chosen, -1, -OLD.value)
        ON CONFLICT (company_id, pipeline_id, stage_id, slot) DO UPDATE
          SET deals_count = t.deals_count - 1, deals_value = t.deals_value - OLD.value;
      DELETE FROM deal_stage_totals
        WHERE company_id = OLD.company_id AND pipeline_id = OLD.pipeline_id
          AND stage_id = OLD.stage_id AND slot = chosen AND deals_count = 0 AND deals_value = 0;
    END IF;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    IF NEW.status = 'open' THEN
      INSERT INTO deal_stage_totals AS t
          (company_id, pipeline_id, stage_id, slot, deals_count, deals_value)
        VALUES (NEW.company_id, NEW.pipeline_id, NEW.stage_id, chosen, 1, NEW.value)
        ON CONFLICT (company_id, pipeline_id, stage_id, slot) DO UPDATE
          SET deals_count = t.deals_count + 1, deals_value = t.deals_value + NEW.value;
      DELETE FROM deal_stage_totals
        WHERE company_id = NEW.company_id AND pipeline_id = NEW.pipeline_id
          AND stage_id = NEW.stage_id AND slot = chosen AND deals_count = 0 AND deals_value = 0;
    END IF;
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER deal_stage_totals_track
  AFTER INSERT OR DELETE OR UPDATE OF status, stage_id, pipeline_id, value ON deals
  FOR EACH ROW EXECUTE FUNCTION deal_stage_totals_track();
