#include "ActivitiesResource.h"

#include <algorithm>

#include "rapport/api_doc.h"
#include "rapport/error.h"
#include "rapport/request_rules.h"
#include "rapport/time.h"

namespace activities {
namespace {

using enum rapport::FieldKind;
using rapport::ActionOutcome;
using rapport::Json;
namespace schema = rapport::schema;

const std::vector<std::string> kRelatedTypes = {"contact", "company", "deal"};

// The scheduled_at sort key: an unscheduled activity stands in as the largest
// BIGINT, so it sorts after every scheduled one (before them when
// descending) on both engines, and falls outside every scheduled_from /
// scheduled_to range. Its index (activities_scheduled) holds the same text.
const std::string kScheduledKey = "coalesce(scheduled_at, 9223372036854775807)";
constexpr std::int64_t kUnscheduled = 9223372036854775807;

// The module that owns a related record type, for the message when it is off.
std::string moduleOf(const std::string& relatedType) {
  return relatedType == "company" ? "companies" : relatedType + "s";  // contacts, deals
}

std::optional<std::string> relatedTypeParam(const rapport::Request& request,
                                            const std::function<bool(const std::string&)>& enabled,
                                            rapport::FieldErrors& errors) {
  auto type = rapport::filterParam(request, "related_type");
  if (!type) return std::nullopt;
  if (std::find(kRelatedTypes.begin(), kRelatedTypes.end(), *type) == kRelatedTypes.end()) {
    errors["related_type"].push_back("The selected related_type is invalid.");
    return std::nullopt;
  }
  if (!enabled(moduleOf(*type))) {
    errors["related_type"].push_back("The related type " + *type + " is not available: the " +
                                     moduleOf(*type) + " module is not enabled.");
    return std::nullopt;
  }
  return type;
}

// A timestamp query parameter: nullopt when absent or blank; a 422 message
// when it is not an ISO-8601 date-time.
std::optional<std::int64_t> timestampParam(const rapport::Request& request, const char* name,
                                           rapport::FieldErrors& errors) {
  const auto text = rapport::filterParam(request, name);
  if (!text) return std::nullopt;
  const auto micros = rapport::parseIsoTimestamp(*text);
  if (!micros) errors[name].push_back(std::string("The ") + name + " is not a valid date-time.");
  return micros;
}

// The list's historic filters beyond the fields' own: the related record by
// type (and id), and a scheduled range.
void listFilters(const std::function<bool(const std::string&)>& enabled,
                 const rapport::Request& request, rapport::WhereClause& where,
                 rapport::FieldErrors& errors) {
  const auto relatedType = relatedTypeParam(request, enabled, errors);
  const auto relatedId = rapport::filterParam(request, "related_id");
  if (relatedType) where.add("related_type = ?", {*relatedType});
  if (relatedId && !relatedType && !errors.contains("related_type")) {
    errors["related_id"].push_back("The related_id filter needs a related_type.");
  }
  if (relatedId && relatedType) where.add("related_id = ?", {*relatedId});
  const auto from = timestampParam(request, "scheduled_from", errors);
  const auto to = timestampParam(request, "scheduled_to", errors);
  if (from && to && *from > *to) {
    errors["scheduled_to"].push_back(
        "The scheduled_to must be a date-time after or equal to scheduled_from.");
  }
  if (from || to) {
    // One range over the sort key; its upper bound stays below kUnscheduled,
    // so unscheduled activities never match.
    where.add(kScheduledKey + " BETWEEN ? AND ?",
              {from.value_or(INT64_MIN), to.value_or(kUnscheduled - 1)});
  }
}

std::vector<std::pair<std::string, Json>> listParameters() {
  return {{"related_type", schema::enumOf(kRelatedTypes)},
          {"related_id", schema::string("Needs related_type.")},
          {"scheduled_from", schema::timestamp("Keeps activities scheduled at or after it.")},
          {"scheduled_to", schema::timestamp("Keeps activities scheduled at or before it.")}};
}

bool isCompleted(const Json& activity) {
  return activity["status"] == Json("completed");
}

rapport::ResourceAction complete() {
  return {
      .path = "/complete",
      .event = "crm.activity.completed",
      .eventDescription = "An activity was completed.",
      .message = "Activity completed.",
      .summary = "Complete an activity",
      .description = "Emits `crm.activity.completed`; 409 when it is already completed.",
      .errors = {409},
      .apply = [](const rapport::ActionContext& context) {
        const Json& activity = context.current;
        if (isCompleted(activity)) {
          throw rapport::Error::conflict("The activity is already completed.");
        }
        return ActionOutcome{.values = {{"status", "completed"}, {"completed_at", context.now}}};
      }};
}

// The API names no event for reopen; crm.activity.updated tells subscribers
// the status changed (docs/modules/activities.md).
rapport::ResourceAction reopen() {
  return {
      .path = "/reopen",
      .event = "crm.activity.updated",
      .eventDescription = "An activity was updated or reopened (status back to pending).",
      .message = "Activity reopened.",
      .summary = "Reopen an activity",
      .description = "Emits `crm.activity.updated`; 409 when it is not completed.",
      .errors = {409},
      .apply = [](const rapport::ActionContext& context) {
        const Json& activity = context.current;
        if (!isCompleted(activity)) {
          throw rapport::Error::conflict("The activity is not completed.");
        }
        return ActionOutcome{.values = {{"status", "pending"}, {"completed_at", rapport::Value()}}};
      }};
}

rapport::ResourceReference related(const std::string& type, const std::string& subList,
                                   const std::string& parentNotFound) {
  return {.recordType = type,
          .notFound = "Related record not found.",
          .module = moduleOf(type),
          .subList = subList,
          .parentNotFound = parentNotFound};
}

}  // namespace

rapport::ResourceSpec activitiesSpec(std::function<bool(const std::string&)> enabled) {
  return {
      .path = "/crm/activities",
      .table = "activities",
      .recordType = "activity",
      .idPrefix = "act_",
      .eventPrefix = "crm.activity",
      .noun = "Activity",
      .fields =
          {{.name = "type",
            .kind = Enum,
            .required = true,
            .filterable = true,
            .options = {"call", "meeting", "email", "task", "note"}},
           {.name = "title", .required = true, .searchable = true, .sortable = true},
           {.name = "description", .maxLength = 10000, .searchable = true},
           // Changed by the complete and reopen actions only.
           {.name = "status",
            .kind = Enum,
            .defaultValue = "pending",
            .filterable = true,
            .options = {"pending", "completed"},
            .access = rapport::FieldAccess::ReadOnly},
           {.name = "scheduled_at",
            .kind = DateTime,
            .sortable = true,
            .sortExpression = kScheduledKey},
           {.name = "duration_minutes", .kind = Integer, .min = 0, .max = kMaxDurationMinutes},
           {.name = "owner_id",
            .kind = Reference,
            .filterable = true,
            .references =
                {{.recordType = "user", .notFound = "Owner not found.", .unlinkOnDelete = false}},
            .description = "A member of the company."},
           // A contact, CRM company or deal, while its module is enabled; a
           // deleted one leaves the activity unrelated. Filtered by the
           // historic related_type and related_id, and related_to.type and
           // related_to.id in the query language, on one index.
           {.name = "related_to",
            .kind = Related,
            .column = "related",
            .indexed = true,
            .references = {related("contact", "/crm/contacts/{id}/activities",
                                   "Contact not found."),
                           related("company", "", ""),
                           related("deal", "/crm/deals/{id}/activities", "Deal not found.")}},
           {.name = "completed_at", .kind = DateTime, .access = rapport::FieldAccess::ReadOnly}},
      .storage = {.migration = "0004_activities",
                  .replaces = {"0002_activities", "0003_activity_listing"},
                  .recordColumn = "activity_id"},
      .rules = {.listFilters =
                    [enabled = std::move(enabled)](const rapport::Request& request,
                                                   rapport::WhereClause& where,
                                                   rapport::FieldErrors& errors) {
                      listFilters(enabled, request, where, errors);
                    },
                .listParameters = listParameters()},
      .actions = {complete(), reopen()},
      .createDescription = "404 when the owner or the related record is not found.",
      .customFields = {.migration = "0005_activities_custom_fields"},
  };
}

std::vector<rapport::Migration> migrations() {
  // The table does not depend on which modules are enabled.
  return rapport::Resource(activitiesSpec([](const std::string&) { return true; })).migrations();
}

}  // namespace activities
