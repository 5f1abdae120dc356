// Field rules of a deal (docs/modules/deals.md lists them).
#include "DealsValidation.h"

#include "rapport/request_rules.h"
#include "rapport/time.h"

namespace deals {
namespace {

const char* const kContactsDisabled =
    "The contact_id field cannot be used: the contacts module is not enabled.";
const char* const kCompaniesDisabled =
    "The company_id field cannot be used: the companies module is not enabled.";

std::string today() {
  return rapport::isoDate(rapport::nowMicros());
}

}  // namespace

DealInput validateDeal(const rapport::Json& body, Mode mode, Links links) {
  rapport::Validator v(body);
  DealInput in;
  const bool create = mode == Mode::Create;
  // PATCH may leave the title out, but never clear it.
  in.title = v.string("title", {.required = create || v.present("title"), .min = 0, .max = 255});
  if (create) {
    in.pipelineId = v.id("pipeline_id", true);
    in.stageId = v.id("stage_id", true);
  } else {
    // Decisions §7: the stage and the status change through their endpoints.
    if (v.present("stage_id"))
      v.fail("stage_id", "Use PATCH /crm/deals/{id}/stage to move a deal.");
    if (v.present("pipeline_id")) {
      v.fail("pipeline_id", "Use PATCH /crm/deals/{id}/stage to move a deal.");
    }
    if (v.present("status")) v.fail("status", "Use win, lose or reopen to change the status.");
  }
  in.value = v.integer("value", {.required = false, .min = 0, .max = kMaxValue});
  in.currency = v.currency("currency");
  in.contactId = v.id("contact_id");
  in.companyId = v.id("company_id");
  in.ownerId = v.id("owner_id");
  in.expectedCloseDate = v.date("expected_close_date");
  in.probability = v.integer("probability", {.required = false, .min = 0, .max = 100});
  in.tags = v.tags("tags");
  in.notes = rapport::optionalText(v, "notes", 10000);
  if (in.contactId.value && !links.contacts) v.fail("contact_id", kContactsDisabled);
  if (in.companyId.value && !links.companies) v.fail("company_id", kCompaniesDisabled);
  v.check();
  return in;
}

StageMove validateStageMove(const rapport::Json& body) {
  rapport::Validator v(body);
  const rapport::Field<std::string> stageId = v.id("stage_id", true);
  const rapport::Field<std::string> pipelineId = v.id("pipeline_id");
  v.check();
  return StageMove{.stageId = *stageId.value, .pipelineId = pipelineId.value};
}

Win validateWin(const rapport::Json& body) {
  rapport::Validator v(body);
  const rapport::Field<std::string> wonAt = v.date("won_at");
  Win win{.wonAt = wonAt.value.value_or(today()),
          .notes = rapport::optionalText(v, "notes", 10000)};
  v.check();
  return win;
}

Loss validateLoss(const rapport::Json& body) {
  rapport::Validator v(body);
  const rapport::Field<std::string> lostAt = v.date("lost_at");
  // `reason` is the spec's name; `lost_reason` (the field as GET shows it) is
  // accepted as an alias; when both are sent, `reason` is used.
  const std::string field =
      v.present("reason") || !v.present("lost_reason") ? "reason" : "lost_reason";
  const rapport::Field<std::string> reason = rapport::optionalText(v, field, 1000);
  v.check();
  return Loss{.lostAt = lostAt.value.value_or(today()), .reason = reason.value};
}

DealFilter validateFilter(const rapport::Request& request, Links links) {
  rapport::FieldErrors errors;
  DealFilter filter{.search = rapport::searchParam(request, errors),
                    .status = rapport::filterParam(request, "status"),
                    .pipelineId = rapport::filterParam(request, "pipeline_id"),
                    .stageId = rapport::filterParam(request, "stage_id"),
                    .contactId = rapport::filterParam(request, "contact_id"),
                    .companyId = rapport::filterParam(request, "company_id"),
                    .ownerId = rapport::filterParam(request, "owner_id"),
                    .tag = rapport::filterParam(request, "tag")};
  if (filter.status && *filter.status != kOpen && *filter.status != kWon &&
      *filter.status != kLost) {
    errors["status"].push_back("The selected status is invalid.");
  }
  if (filter.contactId && !links.contacts) errors["contact_id"].push_back(kContactsDisabled);
  if (filter.companyId && !links.companies) errors["company_id"].push_back(kCompaniesDisabled);
  if (!errors.empty()) throw rapport::Error::validation(std::move(errors));
  return filter;
}

}  // namespace deals
