// The pipelines and stages routes for the API document; the fields and rules
// are those of PipelinesJson, PipelinesValidation and docs/modules/pipelines.md.
#include "PipelinesApiDoc.h"

#include "PipelinesValidation.h"
#include "rapport/api_doc.h"

namespace pipelines {
namespace {

namespace schema = rapport::schema;
using rapport::Json;

const char* const kManagers = "Needs the owner or admin role.";

Json order() {
  return schema::integer("The stage's place, from 1.").set("minimum", 1);
}

Json probability() {
  return schema::integerBetween(0, 100, "Percent; the default of the stage's new deals.");
}

Json stageSchema() {
  return schema::object({{"id", schema::id("stg_")},
                         {"pipeline_id", schema::id("pipe_")},
                         {"name", schema::string()},
                         {"order", order()},
                         {"probability", probability()},
                         {"deals_count", schema::integer("Deals in it, open or closed.")},
                         {"deals_value", schema::money("The sum of their values.")},
                         {"created_at", schema::timestamp()},
                         {"updated_at", schema::timestamp()}},
                        {"id", "pipeline_id", "name", "order", "probability", "deals_count",
                         "deals_value", "created_at", "updated_at"});
}

Json pipelineSchema() {
  return schema::object(
      {{"id", schema::id("pipe_")},
       {"name", schema::string()},
       {"is_default", schema::boolean("The tenant's default pipeline (at most one).")},
       {"stages", schema::arrayOf(schema::ref("Stage"), "In order.")},
       {"deals_count", schema::integer("Deals in it, open or closed.")},
       {"deals_value", schema::money("The sum of their values.")},
       {"created_at", schema::timestamp()},
       {"updated_at", schema::timestamp()}},
      {"id", "name", "is_default", "stages", "deals_count", "deals_value", "created_at",
       "updated_at"});
}

Json stageBody(bool creating) {
  return schema::object(
      {{"name", schema::text(255)}, {"order", order()}, {"probability", probability()}},
      creating ? std::vector<std::string>{"name"} : std::vector<std::string>{});
}

Json pipelineBody(bool creating) {
  schema::Properties properties = {{"name", schema::text(255)}, {"is_default", schema::boolean()}};
  if (creating) {
    properties.emplace_back(
        "stages",
        schema::nullable(schema::arrayOf(stageBody(true), "Placed by order, then as listed.")
                             .set("maxItems", static_cast<std::int64_t>(kMaxStages))));
  }
  return schema::object(std::move(properties),
                        creating ? std::vector<std::string>{"name"} : std::vector<std::string>{});
}

Json listQuery() {
  return schema::pageQuery({"name", "created_at", "updated_at"}, "-created_at");
}

void describePipelines(rapport::Registry& registry, const Json& pipeline) {
  registry.describe("GET", "/crm/pipelines",
                    {.summary = "List pipelines",
                     .query = listQuery(),
                     .data = schema::arrayOf(pipeline),
                     .paged = true});
  registry.describe("POST", "/crm/pipelines",
                    {.summary = "Create a pipeline",
                     .description = std::string(kManagers) +
                                    " The tenant's first pipeline is the default; stages are "
                                    "placed by their order, then as listed.",
                     .body = pipelineBody(true),
                     .status = 201,
                     .data = pipeline});
  registry.describe("GET", "/crm/pipelines/{id}", {.summary = "Get a pipeline", .data = pipeline});
  registry.describe(
      "PATCH", "/crm/pipelines/{id}",
      {.summary = "Update a pipeline",
       .description = std::string(kManagers) + " Making one the default clears the others.",
       .body = pipelineBody(false),
       .data = pipeline});
  registry.describe("DELETE", "/crm/pipelines/{id}",
                    {.summary = "Delete a pipeline and its stages",
                     .description = std::string(kManagers) +
                                    " 409 when it has deals. Deleting the default makes the "
                                    "oldest remaining pipeline the default.",
                     .data = schema::deleted("pipe_"),
                     .errors = {409}});
}

void describeStages(rapport::Registry& registry) {
  const Json stage = schema::ref("Stage");
  const std::string one = "/crm/pipelines/{id}/stages/{stage_id}";
  registry.describe("GET", "/crm/pipelines/{id}/stages",
                    {.summary = "List the stages of a pipeline", .data = schema::arrayOf(stage)});
  registry.describe(
      "POST", "/crm/pipelines/{id}/stages",
      {.summary = "Add a stage to a pipeline",
       .description = std::string(kManagers) + " Without an order it goes last; 409 at 50 stages.",
       .body = stageBody(true),
       .status = 201,
       .data = stage,
       .errors = {409}});
  registry.describe(
      "PATCH", "/crm/pipelines/{id}/stages/reorder",
      {.summary = "Reorder the stages of a pipeline",
       .description = std::string(kManagers) + " The body names every stage once.",
       .body = schema::object(
           {{"stages", schema::arrayOf(schema::object(
                           {{"id", schema::string()}, {"order", order()}}, {"id", "order"}))}},
           {"stages"}),
       .data = schema::arrayOf(stage)});
  registry.describe("GET", one, {.summary = "Get a stage", .data = stage});
  registry.describe(
      "PATCH", one,
      {.summary = "Update a stage",
       .description = std::string(kManagers) + " A new order moves the stages between by one.",
       .body = stageBody(false),
       .data = stage});
  registry.describe("DELETE", one,
                    {.summary = "Delete a stage",
                     .description = std::string(kManagers) + " 409 when it has deals.",
                     .data = schema::deleted("stg_"),
                     .errors = {409}});
}

}  // namespace

void describePipelinesRoutes(rapport::Registry& registry) {
  registry.schema("Stage", stageSchema());
  registry.schema("Pipeline", pipelineSchema());
  describePipelines(registry, schema::ref("Pipeline"));
  describeStages(registry);
}

}  // namespace pipelines
