// The deals routes for the API document; the fields and rules are those of
// DealsJson, DealsValidation and docs/modules/deals.md.
#include "DealsApiDoc.h"

#include "DealsQuery.h"

#include "rapport/api_doc.h"

namespace deals {
namespace {

namespace schema = rapport::schema;
using rapport::Json;

Json currency() {
  return schema::string("ISO 4217 code.").set("pattern", "^[A-Z]{3}$");
}

Json probability() {
  return schema::integerBetween(0, 100, "Percent.");
}

Json value() {
  return schema::money().set("maximum", kMaxValue);
}

Json dealSchema() {
  return schema::object(
      {{"id", schema::id("deal_")},
       {"title", schema::string()},
       {"pipeline_id", schema::id("pipe_")},
       {"stage_id", schema::id("stg_")},
       {"status", schema::enumOf({"open", "won", "lost"})},
       {"value", value()},
       {"currency", currency()},
       {"contact_id", schema::nullable(schema::id("cont_"))},
       {"company_id", schema::nullable(schema::id("comp_", "The CRM company."))},
       {"owner_id", schema::nullable(schema::id("user_"))},
       {"expected_close_date", schema::nullable(schema::date())},
       {"probability", probability()},
       {"tags", schema::arrayOf(schema::string())},
       {"notes", schema::nullable(schema::string())},
       {"won_at", schema::nullable(schema::date())},
       {"lost_at", schema::nullable(schema::date())},
       {"lost_reason", schema::nullable(schema::string())},
       {"created_at", schema::timestamp()},
       {"updated_at", schema::timestamp()}},
      {"id", "title", "pipeline_id", "stage_id", "status", "value", "currency", "contact_id",
       "company_id", "owner_id", "expected_close_date", "probability", "tags", "notes", "won_at",
       "lost_at", "lost_reason", "created_at", "updated_at"});
}

// A create or a PATCH: null clears an optional field. The stage, pipeline
// and status change through their own routes (a PATCH sending them is 422).
Json dealBody(bool creating) {
  schema::Properties properties = {{"title", schema::text(255)}};
  if (creating) {
    properties.emplace_back("pipeline_id", schema::string());
    properties.emplace_back("stage_id", schema::string("A stage of the pipeline."));
  }
  properties.insert(
      properties.end(),
      {{"value", schema::nullable(value())},
       {"currency", schema::nullable(currency())},
       {"contact_id", schema::nullable(schema::string())},
       {"company_id", schema::nullable(schema::string())},
       {"owner_id", schema::nullable(schema::string())},
       {"expected_close_date", schema::nullable(schema::date())},
       {"probability", schema::nullable(probability())},
       {"tags", schema::nullable(schema::arrayOf(schema::text(50), "At most 50 tags."))},
       {"notes", schema::optionalText(10000)}});
  return schema::object(std::move(properties),
                        creating ? std::vector<std::string>{"title", "pipeline_id", "stage_id"}
                                 : std::vector<std::string>{});
}

Json listQuery() {
  return schema::object(
      {{"search", schema::string("Words to find in the deal (at most 255 characters).")},
       {"status", schema::enumOf({"open", "won", "lost"})},
       {"pipeline_id", schema::string()},
       {"stage_id", schema::string()},
       {"contact_id", schema::string()},
       {"company_id", schema::string()},
       {"owner_id", schema::string()},
       {"tag", schema::string("Keeps deals with this tag.")}});
}

void describeRecordRoutes(rapport::Registry& registry, const Json& deal) {
  dealsQuery().describeList(
      registry, "/crm/deals",
      {.summary = "List deals", .query = listQuery(), .data = schema::arrayOf(deal)});
  dealsQuery().describeSearch(registry, "/crm/deals", "Search deals", deal);
  registry.describe(
      "POST", "/crm/deals",
      {.summary = "Create a deal",
       .description = "Emits `crm.deal.created`. The probability defaults to the stage's. 404 "
                      "when the pipeline, stage, contact, company or owner is not found.",
       .body = dealBody(true),
       .status = 201,
       .data = deal,
       .errors = {404}});
  registry.describe("GET", "/crm/deals/{id}", {.summary = "Get a deal", .data = deal});
  registry.describe("PATCH", "/crm/deals/{id}",
                    {.summary = "Update a deal",
                     .description = "Emits `crm.deal.updated` when a field changed.",
                     .body = dealBody(false),
                     .data = deal});
  registry.describe("DELETE", "/crm/deals/{id}",
                    {.summary = "Delete a deal",
                     .description = "Emits `crm.deal.deleted`.",
                     .data = schema::deleted("deal_")});
}

void describeStateRoutes(rapport::Registry& registry, const Json& deal) {
  registry.describe(
      "PATCH", "/crm/deals/{id}/stage",
      {.summary = "Move a deal to another stage",
       .description = "Emits `crm.deal.stage_changed` (unless it is already there). The "
                      "probability stays. 409 when the deal is closed.",
       .body = schema::object({{"stage_id", schema::string()},
                               {"pipeline_id", schema::string("Default: the deal's pipeline.")}},
                              {"stage_id"}),
       .data = deal,
       .errors = {409}});
  registry.describe(
      "POST", "/crm/deals/{id}/win",
      {.summary = "Mark a deal won",
       .description = "Emits `crm.deal.won`; 409 when the deal is closed.",
       .body = schema::object({{"won_at", schema::nullable(schema::date("Default: today."))},
                               {"notes", schema::optionalText(10000)}}),
       .data = deal,
       .errors = {409}});
  registry.describe(
      "POST", "/crm/deals/{id}/lose",
      {.summary = "Mark a deal lost",
       .description = "Emits `crm.deal.lost`; 409 when the deal is closed.",
       .body = schema::object({{"lost_at", schema::nullable(schema::date("Default: today."))},
                               {"reason", schema::optionalText(1000)},
                               {"lost_reason", schema::optionalText(1000, "An alias of reason.")}}),
       .data = deal,
       .errors = {409}});
  registry.describe("POST", "/crm/deals/{id}/reopen",
                    {.summary = "Reopen a won or lost deal",
                     .description = "Emits `crm.deal.updated`; 409 when the deal is open.",
                     .data = deal,
                     .errors = {409}});
}

}  // namespace

void describeDealsRoutes(rapport::Registry& registry, Links links) {
  registry.schema("Deal", dealSchema());
  const Json deal = schema::ref("Deal");
  describeRecordRoutes(registry, deal);
  describeStateRoutes(registry, deal);
  if (links.contacts) {
    dealsQuery().describeList(registry, "/crm/contacts/{id}/deals",
                              {.summary = "List the deals of a contact",
                               .tag = "deals",
                               .query = listQuery(),
                               .data = schema::arrayOf(deal)});
  }
  if (links.companies) {
    dealsQuery().describeList(registry, "/crm/companies/{id}/deals",
                              {.summary = "List the deals of a CRM company",
                               .tag = "deals",
                               .query = listQuery(),
                               .data = schema::arrayOf(deal)});
  }
}

}  // namespace deals
