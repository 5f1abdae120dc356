#include "PipelinesJson.h"

#include <map>
#include <string>

#include "rapport/time.h"

namespace pipelines {

using rapport::Json;

Json stageJson(const rapport::Row& row) {
  return Json::object({
      {"id", row.str("id")},
      {"pipeline_id", row.str("pipeline_id")},
      {"name", row.str("name")},
      {"order", row.i64("position")},
      {"probability", row.i64("probability")},
      {"deals_count", 0},
      {"deals_value", 0},
      {"created_at", rapport::isoTimestamp(row.i64("created_at"))},
      {"updated_at", rapport::isoTimestamp(row.i64("updated_at"))},
  });
}

Json pipelineJson(const rapport::Row& row, Json stages) {
  return Json::object({
      {"id", row.str("id")},
      {"name", row.str("name")},
      {"is_default", row.flag("is_default")},
      {"stages", std::move(stages)},
      {"deals_count", 0},
      {"deals_value", 0},
      {"created_at", rapport::isoTimestamp(row.i64("created_at"))},
      {"updated_at", rapport::isoTimestamp(row.i64("updated_at"))},
  });
}

Json::Array pipelinesJson(const rapport::Result& pipelineRows, const rapport::Result& stageRows) {
  std::map<std::string, Json> stagesByPipeline;
  for (const rapport::Row& stage : stageRows) {
    stagesByPipeline[stage.str("pipeline_id")].push(stageJson(stage));
  }
  Json::Array out;
  out.reserve(pipelineRows.size());
  for (const rapport::Row& row : pipelineRows) {
    auto found = stagesByPipeline.find(row.str("id"));
    out.push_back(pipelineJson(
        row, found == stagesByPipeline.end() ? Json::array() : std::move(found->second)));
  }
  return out;
}

}  // namespace pipelines
