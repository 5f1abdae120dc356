// What a deal request may carry: bodies of POST, PATCH, the stage move and
// the transitions, and the list's query filters. Every rule that needs no
// database lives here; rules that do (the pipeline, stage, contact, company
// and owner exist) live in DealsRoutes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "DealsStore.h"
#include "rapport/http.h"
#include "rapport/validation.h"

namespace deals {

// The largest value a deal may carry, in cents (10 000 000 000.00): the
// totals of a stage (sums of BIGINT) stay far from overflowing.
inline constexpr std::int64_t kMaxValue = 1'000'000'000'000;

// Which optional modules are enabled (checked once, in setup).
struct Links {
  bool contacts = false;
  bool companies = false;
};

// A validated body. Each Field tells apart absent (PATCH leaves it alone),
// null (clears it; a blank optional string reads as null too) and a value.
struct DealInput {
  rapport::Field<std::string> title;
  rapport::Field<std::string> pipelineId;  // create only
  rapport::Field<std::string> stageId;     // create only
  rapport::Field<std::int64_t> value;      // null reads as 0
  rapport::Field<std::string> currency;    // null reads as "USD"
  rapport::Field<std::string> contactId;
  rapport::Field<std::string> companyId;  // the CRM company (API field company_id)
  rapport::Field<std::string> ownerId;
  rapport::Field<std::string> expectedCloseDate;
  rapport::Field<std::int64_t> probability;  // null: the stage's probability
  rapport::Field<std::vector<std::string>> tags;
  rapport::Field<std::string> notes;
};

enum class Mode { Create, Update };

// Reads a POST (Create: title, pipeline_id and stage_id required) or PATCH
// (Update: title may be absent, never null or blank; stage_id, pipeline_id
// and status are refused) body. Throws one 422 naming every field at fault.
DealInput validateDeal(const rapport::Json& body, Mode mode, Links links);

// PATCH /crm/deals/{id}/stage {stage_id, pipeline_id?}.
struct StageMove {
  std::string stageId;
  std::optional<std::string> pipelineId;
};
StageMove validateStageMove(const rapport::Json& body);

// POST .../win {won_at?, notes?}: the date defaults to today (UTC).
struct Win {
  std::string wonAt;
  rapport::Field<std::string> notes;
};
Win validateWin(const rapport::Json& body);

// POST .../lose {lost_at?, reason? (alias lost_reason)}: the date defaults to
// today (UTC).
struct Loss {
  std::string lostAt;
  std::optional<std::string> reason;
};
Loss validateLoss(const rapport::Json& body);

// Reads the filters of GET /crm/deals and the sub-lists; blank values are
// ignored. Throws a 422 on a search longer than 255 characters, a status
// other than open, won or lost, or a contact_id / company_id filter whose
// module is not enabled.
DealFilter validateFilter(const rapport::Request& request, Links links);

}  // namespace deals
