// The activities routes for the API document; the fields and rules are those
// of ActivitiesJson, ActivitiesValidation and docs/modules/activities.md.
#include "ActivitiesApiDoc.h"

#include "ActivitiesQuery.h"

#include "ActivitiesValidation.h"
#include "rapport/api_doc.h"

namespace activities {
namespace {

namespace schema = rapport::schema;
using rapport::Json;

Json type() {
  return schema::enumOf({"call", "meeting", "email", "task", "note"});
}

Json relatedType() {
  return schema::enumOf({"contact", "company", "deal"},
                        "A type whose module is enabled (otherwise 422).");
}

Json duration() {
  return schema::integerBetween(0, kMaxDurationMinutes, "Minutes.");
}

Json activitySchema() {
  return schema::object(
      {{"id", schema::id("act_")},
       {"type", type()},
       {"title", schema::string()},
       {"description", schema::nullable(schema::string())},
       {"status", schema::enumOf({"pending", "completed"})},
       {"scheduled_at", schema::nullable(schema::timestamp())},
       {"duration_minutes", schema::nullable(duration())},
       {"owner_id", schema::nullable(schema::id("user_"))},
       {"related_to",
        schema::nullable(schema::object({{"type", relatedType()}, {"id", schema::string()}},
                                        {"type", "id"}, "The contact, company or deal."))},
       {"completed_at", schema::nullable(schema::timestamp())},
       {"created_at", schema::timestamp()},
       {"updated_at", schema::timestamp()}},
      {"id", "type", "title", "description", "status", "scheduled_at", "duration_minutes",
       "owner_id", "related_to", "completed_at", "created_at", "updated_at"});
}

// A create or a PATCH: null clears an optional field.
Json activityBody(bool creating) {
  return schema::object(
      {{"type", type()},
       {"title", schema::text(255)},
       {"description", schema::optionalText(10000)},
       {"scheduled_at", schema::nullable(schema::timestamp())},
       {"duration_minutes", schema::nullable(duration())},
       {"owner_id", schema::nullable(schema::string())},
       {"related_to", schema::nullable(schema::object(
                          {{"type", relatedType()}, {"id", schema::string()}}, {"type", "id"}))}},
      creating ? std::vector<std::string>{"type", "title"} : std::vector<std::string>{});
}

Json listQuery() {
  return schema::object(
      {{"search", schema::string("Words to find in the activity (at most 255 characters).")},
       {"type", type()},
       {"status", schema::enumOf({"pending", "completed"})},
       {"owner_id", schema::string()},
       {"related_type", relatedType()},
       {"related_id", schema::string("Needs related_type.")},
       {"scheduled_from", schema::timestamp("Keeps activities scheduled at or after it.")},
       {"scheduled_to", schema::timestamp("Keeps activities scheduled at or before it.")}});
}

void describeRelatedList(rapport::Registry& registry, const std::string& path,
                         const std::string& summary) {
  activitiesQuery().describeList(registry, path,
                                 {.summary = summary,
                                  .tag = "activities",
                                  .query = listQuery(),
                                  .data = schema::arrayOf(schema::ref("Activity"))});
}

}  // namespace

void describeActivitiesRoutes(rapport::Registry& registry, RelatedLists lists) {
  registry.schema("Activity", activitySchema());
  const Json activity = schema::ref("Activity");
  activitiesQuery().describeList(
      registry, "/crm/activities",
      {.summary = "List activities", .query = listQuery(), .data = schema::arrayOf(activity)});
  activitiesQuery().describeSearch(registry, "/crm/activities", "Search activities", activity);
  registry.describe("POST", "/crm/activities",
                    {.summary = "Create an activity",
                     .description = "Emits `crm.activity.created`; 404 when the owner or the "
                                    "related record is not found.",
                     .body = activityBody(true),
                     .status = 201,
                     .data = activity,
                     .errors = {404}});
  registry.describe("GET", "/crm/activities/{id}",
                    {.summary = "Get an activity", .data = activity});
  registry.describe("PATCH", "/crm/activities/{id}",
                    {.summary = "Update an activity",
                     .description = "Emits `crm.activity.updated` when a field changed.",
                     .body = activityBody(false),
                     .data = activity});
  registry.describe("DELETE", "/crm/activities/{id}",
                    {.summary = "Delete an activity",
                     .description = "Emits `crm.activity.deleted`.",
                     .data = schema::deleted("act_")});
  registry.describe("POST", "/crm/activities/{id}/complete",
                    {.summary = "Complete an activity",
                     .description = "Emits `crm.activity.completed`; 409 when it is completed.",
                     .data = activity,
                     .errors = {409}});
  registry.describe("POST", "/crm/activities/{id}/reopen",
                    {.summary = "Reopen a completed activity",
                     .description = "Emits `crm.activity.updated` (status back to pending); 409 "
                                    "when it is not completed.",
                     .data = activity,
                     .errors = {409}});
  if (lists.contacts) {
    describeRelatedList(registry, "/crm/contacts/{id}/activities",
                        "List the activities of a contact");
  }
  if (lists.deals) {
    describeRelatedList(registry, "/crm/deals/{id}/activities", "List the activities of a deal");
  }
}

}  // namespace activities
