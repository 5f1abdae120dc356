// What an activity request may carry: bodies of POST and PATCH, and the
// list's query filters. Every rule that needs no database lives here; rules
// that do (the owner and the related record exist) live in ActivitiesRoutes.
#pragma once

#include <cstdint>
#include <string>

#include "ActivitiesStore.h"
#include "rapport/http.h"
#include "rapport/records.h"
#include "rapport/validation.h"

namespace activities {

// The longest duration_minutes accepted: one week.
inline constexpr std::int64_t kMaxDurationMinutes = 10080;

// A validated body. Each Field tells apart absent (PATCH leaves it alone),
// null (clears it; a blank optional string reads as null too) and a value.
struct ActivityInput {
  rapport::Field<std::string> type;
  rapport::Field<std::string> title;
  rapport::Field<std::string> description;
  rapport::Field<std::int64_t> scheduledAt;  // microseconds since the epoch, UTC
  rapport::Field<std::int64_t> durationMinutes;
  rapport::Field<std::string> ownerId;
  rapport::Field<RelatedTo> relatedTo;
};

enum class Mode { Create, Update };

// Reads a POST (Create: type and title required) or PATCH (Update: type and
// title may be absent, never null or blank) body. Throws one 422 naming every
// field at fault (nested ones as related_to.type, related_to.id). A
// related_to.type whose owning module is not enabled (`records` does not
// know it) is a 422 on related_to.type.
ActivityInput validateActivity(const rapport::Json& body, Mode mode,
                               const rapport::RecordDirectory& records);

// Reads the filters of GET /crm/activities and of the sub-lists (search,
// type, status, owner_id, related_type, related_id, scheduled_from,
// scheduled_to); blank values are ignored. Throws one 422 naming every
// parameter at fault.
ActivityFilter validateFilter(const rapport::Request& request,
                              const rapport::RecordDirectory& records);

}  // namespace activities
