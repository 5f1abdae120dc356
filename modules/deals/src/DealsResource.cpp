#include "DealsResource.h"

#include "rapport/api_doc.h"
#include "rapport/error.h"
#include "rapport/request_rules.h"
#include "rapport/time.h"
#include "rapport/validation.h"

namespace deals {
namespace {

using enum rapport::FieldKind;
using rapport::ActionOutcome;
using rapport::Error;
using rapport::Json;
using rapport::Request;
using rapport::Tx;
namespace schema = rapport::schema;

const char* const kMoveMessage = "Use PATCH /crm/deals/{id}/stage to move a deal.";

std::string today() {
  return rapport::isoDate(rapport::nowMicros());
}

bool isOpen(const Json& deal) {
  return deal["status"] == Json("open");
}

// The stage, read as its GET shows it (the key-share lock of a reference
// about to be written); 404 when it is not there, 422 when it is another
// pipeline's.
Json requireStage(rapport::Host& host, Tx& tx, const std::string& stageId,
                  const std::string& pipelineId) {
  std::optional<Json> stage =
      host.records().fetch(tx, tx.companyId(), "stage", stageId, rapport::RecordLock::Share);
  if (!stage) throw Error::notFound("Stage not found.");
  if ((*stage)["pipeline_id"] != Json(pipelineId)) {
    throw Error::invalidField("stage_id", "The stage does not belong to the pipeline.");
  }
  return std::move(*stage);
}

rapport::Value probabilityOf(const Json& stage) {
  return stage["probability"].isInt() ? stage["probability"].asInt() : 0;
}

// Decisions §7: the stage and the status change through their routes.
void refuseStateFields(rapport::Validator& v, rapport::ResourceWrite write) {
  if (write != rapport::ResourceWrite::Update) return;
  if (v.present("stage_id")) v.fail("stage_id", kMoveMessage);
  if (v.present("pipeline_id")) v.fail("pipeline_id", kMoveMessage);
  if (v.present("status")) v.fail("status", "Use win, lose or reopen to change the status.");
}

// A new deal's stage belongs to its pipeline; the probability is the
// stage's unless the body sets one (a null sent on PATCH: back to the
// stage's).
void beforeWrite(rapport::Host& host, Tx& tx, rapport::ResourceChange& change) {
  const Json* sent = change.body.find("probability");
  const bool stagesProbability = sent == nullptr || sent->isNull();
  if (change.write == rapport::ResourceWrite::Create) {
    // Both are required on create: validation put them in the values.
    const Json stage =
        requireStage(host, tx, rapport::findValue(change.values, "stage_id")->asString(),
                     rapport::findValue(change.values, "pipeline_id")->asString());
    if (stagesProbability) rapport::setValue(change.values, "probability", probabilityOf(stage));
    return;
  }
  if (sent == nullptr || !sent->isNull()) return;
  const auto stage =
      host.records().fetch(tx, tx.companyId(), "stage", (*change.current)["stage_id"].asString(),
                           rapport::RecordLock::None);
  if (!stage) throw Error::notFound("Stage not found.");
  rapport::setValue(change.values, "probability", probabilityOf(*stage));
}

rapport::ResourceAction moveStage(rapport::Host& host) {
  return {
      .method = "PATCH",
      .path = "/stage",
      .event = "crm.deal.stage_changed",
      .eventDescription = "A deal moved to another stage.",
      .message = "Deal moved.",
      .summary = "Move a deal to another stage",
      .description =
          "Emits `crm.deal.stage_changed` (unless it is already there). The "
          "probability stays. 409 when the deal is closed.",
      .body = schema::object({{"stage_id", schema::string()},
                              {"pipeline_id", schema::string("Default: the deal's pipeline.")}},
                             {"stage_id"}),
      .errors = {409},
      .apply = [&host](const rapport::ActionContext& context) {
        const Request& request = context.request;
        const Json& deal = context.current;
        Tx& tx = context.tx;
        rapport::Validator v(request.bodyObject());
        const rapport::Field<std::string> stageId = v.id("stage_id", true);
        const rapport::Field<std::string> pipelineIdSent = v.id("pipeline_id");
        v.check();
        if (!isOpen(deal)) throw Error::conflict("The deal is closed.");
        const std::string current = deal["pipeline_id"].asString();
        const std::string pipelineId = pipelineIdSent.value.value_or(current);
        if (pipelineId != current && !host.records().lockForReference(tx, "pipeline", pipelineId)) {
          throw Error::notFound("Pipeline not found.");
        }
        if (*stageId.value == deal["stage_id"].asString() && pipelineId == current) {
          return ActionOutcome{.changed = false};  // the same stage: no write, no event
        }
        requireStage(host, tx, *stageId.value, pipelineId);
        // The probability stays (docs/modules/deals.md).
        ActionOutcome outcome{
            .values = {{"stage_id", *stageId.value}, {"pipeline_id", pipelineId}}};
        outcome.eventExtras.set("previous_stage_id", deal["stage_id"]);
        if (pipelineId != current) outcome.eventExtras.set("previous_pipeline_id", current);
        return outcome;
      }};
}

rapport::ResourceAction win() {
  return {.path = "/win",
          .event = "crm.deal.won",
          .eventDescription = "A deal was marked won.",
          .message = "Deal won.",
          .summary = "Mark a deal won",
          .description = "Emits `crm.deal.won`; 409 when the deal is closed.",
          .body = schema::object({{"won_at", schema::nullable(schema::date("Default: today."))},
                                  {"notes", schema::optionalText(10000)}}),
          .errors = {409},
          .apply = [](const rapport::ActionContext& context) {
            const Request& request = context.request;
            const Json& deal = context.current;
            rapport::Validator v(request.bodyObject());
            const rapport::Field<std::string> wonAt = v.date("won_at");
            const rapport::Field<std::string> notes = rapport::optionalText(v, "notes", 10000);
            v.check();
            if (!isOpen(deal)) throw Error::conflict("The deal is already closed.");
            ActionOutcome outcome{
                .values = {{"status", "won"}, {"won_at", wonAt.value.value_or(today())}}};
            if (notes.present) outcome.values.emplace_back("notes", rapport::Value(notes.value));
            return outcome;
          }};
}

rapport::ResourceAction lose() {
  return {
      .path = "/lose",
      .event = "crm.deal.lost",
      .eventDescription = "A deal was marked lost.",
      .message = "Deal lost.",
      .summary = "Mark a deal lost",
      .description = "Emits `crm.deal.lost`; 409 when the deal is closed.",
      .body = schema::object({{"lost_at", schema::nullable(schema::date("Default: today."))},
                              {"reason", schema::optionalText(1000)},
                              {"lost_reason", schema::optionalText(1000, "An alias of reason.")}}),
      .errors = {409},
      .apply = [](const rapport::ActionContext& context) {
        const Request& request = context.request;
        const Json& deal = context.current;
        rapport::Validator v(request.bodyObject());
        const rapport::Field<std::string> lostAt = v.date("lost_at");
        // `reason` is the spec's name; `lost_reason` (the field as GET shows
        // it) is accepted as an alias; when both are sent, `reason` is used.
        const std::string field =
            v.present("reason") || !v.present("lost_reason") ? "reason" : "lost_reason";
        const rapport::Field<std::string> reason = rapport::optionalText(v, field, 1000);
        v.check();
        if (!isOpen(deal)) throw Error::conflict("The deal is already closed.");
        return ActionOutcome{.values = {{"status", "lost"},
                                        {"lost_at", lostAt.value.value_or(today())},
                                        {"lost_reason", rapport::Value(reason.value)}}};
      }};
}

rapport::ResourceAction reopen() {
  return {.path = "/reopen",
          .event = "crm.deal.updated",
          .eventDescription = "A deal was updated or reopened.",
          .message = "Deal reopened.",
          .summary = "Reopen a won or lost deal",
          .description = "Emits `crm.deal.updated`; 409 when the deal is open.",
          .errors = {409},
          .apply = [](const rapport::ActionContext& context) {
            const Json& deal = context.current;
            if (isOpen(deal)) throw Error::conflict("The deal is already open.");
            return ActionOutcome{.values = {{"status", "open"},
                                            {"won_at", rapport::Value()},
                                            {"lost_at", rapport::Value()},
                                            {"lost_reason", rapport::Value()}}};
          }};
}

// A pipeline or a stage with deals cannot be deleted (a guard), so a deal's
// references to them are never unlinked.
rapport::ResourceReference kept(const std::string& type, const std::string& notFound) {
  return {.recordType = type, .notFound = notFound, .unlinkOnDelete = false};
}

}  // namespace

rapport::ResourceSpec dealsSpec(rapport::Host& host) {
  using rapport::FieldAccess;
  return {
      .path = "/crm/deals",
      .table = "deals",
      .recordType = "deal",
      .idPrefix = "deal_",
      .eventPrefix = "crm.deal",
      .noun = "Deal",
      .fields =
          {{.name = "title", .required = true, .searchable = true, .sortable = true},
           {.name = "pipeline_id",
            .kind = Reference,
            .required = true,
            .filterable = true,
            .references = {kept("pipeline", "Pipeline not found.")},
            .access = FieldAccess::CreateOnly},
           {.name = "stage_id",
            .kind = Reference,
            .required = true,
            .filterable = true,
            .references = {kept("stage", "Stage not found.")},
            .access = FieldAccess::CreateOnly,
            .description = "A stage of the pipeline."},
           {.name = "status",
            .kind = Enum,
            .defaultValue = "open",
            .filterable = true,
            .options = {"open", "won", "lost"},
            .access = FieldAccess::ReadOnly},
           {.name = "value", .kind = Money, .max = kMaxValue, .defaultValue = 0, .sortable = true},
           {.name = "currency", .kind = Currency, .defaultValue = "USD"},
           {.name = "contact_id",
            .kind = Reference,
            .filterable = true,
            .references = {{.recordType = "contact",
                            .notFound = "Contact not found.",
                            .module = "contacts",
                            .subList = "/crm/contacts/{id}/deals"}}},
           {.name = "company_id",
            .kind = Reference,
            .filterable = true,
            .column = "crm_company_id",
            .references = {{.recordType = "company",
                            .notFound = "Company not found.",
                            .module = "companies",
                            .subList = "/crm/companies/{id}/deals"}}},
           {.name = "owner_id",
            .kind = Reference,
            .filterable = true,
            .references = {kept("user", "Owner not found.")}},
           // Undated deals sort after every date (the index deals_close).
           {.name = "expected_close_date",
            .kind = Date,
            .sortExpression = "coalesce(expected_close_date, '9999-12-32')"},
           // The stage's probability unless set (beforeWrite).
           {.name = "probability",
            .kind = Integer,
            .min = 0,
            .max = 100,
            .defaultValue = 0,
            .description = "Percent."},
           {.name = "tags", .kind = Tags},
           {.name = "notes", .maxLength = 10000},
           {.name = "won_at", .kind = Date, .access = FieldAccess::ReadOnly},
           {.name = "lost_at", .kind = Date, .access = FieldAccess::ReadOnly},
           {.name = "lost_reason", .maxLength = 1000, .access = FieldAccess::ReadOnly}},
      // The table predates the engine's rules (probability INTEGER, value
      // DEFAULT 0, the index deals_close): its migrations stay the module's.
      .storage = {.recordColumn = "deal_id"},
      .rules = {.check = refuseStateFields,
                .beforeWrite =
                    [&host](Tx& tx, rapport::ResourceChange& change) {
                      beforeWrite(host, tx, change);
                    }},
      .actions = {moveStage(host), win(), lose(), reopen()},
      .createDescription =
          "404 when the pipeline, stage, contact, company or owner is not "
          "there; 422 when the stage is another pipeline's.",
      .customFields = {.migration = "0007_deals_custom_fields"},
  };
}

}  // namespace deals
