#include "PipelinesQuery.h"

namespace pipelines {

using rapport::QueryKind;

// Pipelines and stages answer the query language only as the targets of
// deals' references (pipeline.name, stage.name, include=pipeline,stage):
// their own lists stay numbered pages of the few pipelines a company has.
const rapport::RecordQuery& pipelinesQuery() {
  static const rapport::RecordQuery query({
      .recordType = "pipeline",
      .table = "pipelines",
      .fields = {{.name = "name", .column = "name", .nullable = false},
                 {.name = "is_default",
                  .column = "is_default",
                  .kind = QueryKind::Boolean,
                  .nullable = false}},
  });
  return query;
}

const rapport::RecordQuery& stagesQuery() {
  static const rapport::RecordQuery query({
      .recordType = "stage",
      .table = "pipeline_stages",
      .fields =
          {{.name = "pipeline_id",
            .column = "pipeline_id",
            .kind = QueryKind::Id,
            .nullable = false,
            .reference = "pipeline"},
           {.name = "name", .column = "name", .nullable = false},
           {.name = "order", .column = "position", .kind = QueryKind::Number, .nullable = false},
           {.name = "probability",
            .column = "probability",
            .kind = QueryKind::Number,
            .nullable = false}},
      .outputFields = {"id", "pipeline_id", "name", "order", "probability", "deals_count",
                       "deals_value", "created_at", "updated_at"},
  });
  return query;
}

}  // namespace pipelines
