// Pipelines and stages as the API shows them: the one place their shape is
// defined, used by every route and by the record directory's fetch.
//
// deals_count and deals_value are written as 0 here; the routes then pass the
// pipelines to host.records().augment(..., "pipeline", ...), where the deals
// module (when enabled) sets them from its own totals.
#pragma once

#include "rapport/db.h"
#include "rapport/json.h"

namespace pipelines {

// {id, pipeline_id, name, order, probability, deals_count, deals_value,
//  created_at, updated_at} from a stage row of the store.
rapport::Json stageJson(const rapport::Row& row);

// {id, name, is_default, stages, deals_count, deals_value, created_at,
//  updated_at} from a pipeline row and its stages (already in order).
rapport::Json pipelineJson(const rapport::Row& row, rapport::Json stages);

// The pipelines of `pipelineRows`, in that order, each with its stages taken
// from `stageRows` (store::stagesOf: ordered by pipeline, then position).
rapport::Json::Array pipelinesJson(const rapport::Result& pipelineRows,
                                   const rapport::Result& stageRows);

}  // namespace pipelines
