// Field rules of an activity (docs/modules/activities.md lists them).
#include "ActivitiesValidation.h"

#include <algorithm>
#include <vector>

#include "rapport/request_rules.h"
#include "rapport/time.h"

namespace activities {
namespace {

const std::vector<std::string> kTypes = {"call", "meeting", "email", "task", "note"};
const std::vector<std::string> kStatuses = {"pending", "completed"};
const std::vector<std::string> kRelatedTypes = {"contact", "company", "deal"};

// The module that owns a related record type, for the message when it is off.
std::string moduleOf(const std::string& relatedType) {
  if (relatedType == "company") return "companies";
  return relatedType + "s";  // contacts, deals
}

std::string unavailableMessage(const std::string& relatedType) {
  return "The related type " + relatedType + " is not available: the " + moduleOf(relatedType) +
         " module is not enabled.";
}

// related_to: absent, null, or an object {type, id}. Its members are checked
// under their dotted names (related_to.type, related_to.id) by a validator of
// their own, whose messages are copied into `v`.
rapport::Field<RelatedTo> relatedTo(rapport::Validator& v, const rapport::Json& body,
                                    const rapport::RecordDirectory& records) {
  rapport::Field<RelatedTo> out;
  const rapport::Json* value = body.find("related_to");
  out.present = value != nullptr;
  if (value == nullptr || value->isNull()) return out;
  if (!value->isObject()) {
    v.fail("related_to", "The related_to must be an object.");
    return out;
  }
  rapport::Json flat = rapport::Json::object();
  if (const rapport::Json* type = value->find("type")) flat.set("related_to.type", *type);
  if (const rapport::Json* id = value->find("id")) flat.set("related_to.id", *id);
  rapport::Validator nested(flat);
  const auto type = nested.oneOf("related_to.type", kRelatedTypes, true);
  const auto id = nested.id("related_to.id", true);
  if (type.value && !records.knows(*type.value)) {
    nested.fail("related_to.type", unavailableMessage(*type.value));
  }
  for (const auto& [field, messages] : nested.errors()) {
    for (const std::string& message : messages) v.fail(field, message);
  }
  if (nested.ok()) out.value = RelatedTo{.type = *type.value, .id = *id.value};
  return out;
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

// A query parameter that must be one of `allowed`.
std::optional<std::string> oneOfParam(const rapport::Request& request, const char* name,
                                      const std::vector<std::string>& allowed,
                                      rapport::FieldErrors& errors) {
  auto value = rapport::filterParam(request, name);
  if (value && std::find(allowed.begin(), allowed.end(), *value) == allowed.end()) {
    errors[name].push_back(std::string("The selected ") + name + " is invalid.");
    return std::nullopt;
  }
  return value;
}

}  // namespace

ActivityInput validateActivity(const rapport::Json& body, Mode mode,
                               const rapport::RecordDirectory& records) {
  rapport::Validator v(body);
  ActivityInput in;
  // PATCH may leave type and title out, but never clear them.
  in.type = v.oneOf("type", kTypes, mode == Mode::Create || v.present("type"));
  const bool titleRequired = mode == Mode::Create || v.present("title");
  in.title = v.string("title", {.required = titleRequired, .min = 0, .max = 255});
  in.description = rapport::optionalText(v, "description", 10000);
  in.scheduledAt = v.timestamp("scheduled_at");
  in.durationMinutes =
      v.integer("duration_minutes", {.required = false, .min = 0, .max = kMaxDurationMinutes});
  in.ownerId = v.id("owner_id");
  in.relatedTo = relatedTo(v, body, records);
  v.check();
  return in;
}

ActivityFilter validateFilter(const rapport::Request& request,
                              const rapport::RecordDirectory& records) {
  rapport::FieldErrors errors;
  ActivityFilter filter{.search = rapport::searchParam(request, errors),
                        .type = oneOfParam(request, "type", kTypes, errors),
                        .status = oneOfParam(request, "status", kStatuses, errors),
                        .ownerId = rapport::filterParam(request, "owner_id"),
                        .relatedType = oneOfParam(request, "related_type", kRelatedTypes, errors),
                        .relatedId = rapport::filterParam(request, "related_id"),
                        .scheduledFrom = timestampParam(request, "scheduled_from", errors),
                        .scheduledTo = timestampParam(request, "scheduled_to", errors)};
  if (filter.relatedType && !records.knows(*filter.relatedType)) {
    errors["related_type"].push_back(unavailableMessage(*filter.relatedType));
  }
  if (filter.relatedId && !filter.relatedType && !errors.contains("related_type")) {
    errors["related_id"].push_back("The related_id filter needs a related_type.");
  }
  if (filter.scheduledFrom && filter.scheduledTo && *filter.scheduledFrom > *filter.scheduledTo) {
    errors["scheduled_to"].push_back(
        "The scheduled_to must be a date-time after or equal to scheduled_from.");
  }
  if (!errors.empty()) throw rapport::Error::validation(std::move(errors));
  return filter;
}

}  // namespace activities
