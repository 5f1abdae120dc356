#include "openapi/CustomFieldsDocument.h"

#include <map>

#include "rapport/custom_fields.h"

namespace rapport::host {
namespace {

using rapport::Json;

// Calls `visit` on every object of `value` (arrays and objects, depth
// first); `visit` returns false when it replaced the object, whose new value
// is then not walked.
template <typename Visit>
void walkObjects(Json& value, const Visit& visit) {
  if (value.isArray()) {
    for (Json& element : value.asArray()) walkObjects(element, visit);
    return;
  }
  if (!value.isObject() || !visit(value)) return;
  for (auto& member : value.asObject()) walkObjects(member.second, visit);
}

}  // namespace

std::size_t removeCustomFieldMarkers(Json& document) {
  std::size_t removed = 0;
  walkObjects(document, [&removed](Json& object) {
    if (object.contains(rapport::kCustomFieldsMarker)) {
      object.erase(rapport::kCustomFieldsMarker);
      ++removed;
    }
    return true;
  });
  return removed;
}

void replaceCustomFieldMarkers(Json& document, const CustomFieldsSchemaOf& schemaOf) {
  std::map<std::string, Json> schemas;  // by record type: each asked once
  walkObjects(document, [&](Json& object) {
    const Json* marker = object.find(rapport::kCustomFieldsMarker);
    if (marker == nullptr) return true;
    if (!marker->isString()) {
      object.erase(rapport::kCustomFieldsMarker);
      return true;
    }
    const std::string recordType = marker->asString();
    auto found = schemas.find(recordType);
    if (found == schemas.end()) found = schemas.emplace(recordType, schemaOf(recordType)).first;
    object = found->second;
    return false;
  });
}

Json companyDocument(const Json& marked, rapport::Queryable& db, const std::string& companyId) {
  Json document = marked;
  replaceCustomFieldMarkers(document, [&](const std::string& recordType) {
    return rapport::customFieldsSchema(rapport::readCustomFields(db, companyId, recordType));
  });
  return document;
}

}  // namespace rapport::host
