#include "openapi/ApiSchemas.h"

#include <algorithm>
#include <stdexcept>

#include "rapport/api_doc.h"

namespace rapport::host {
namespace {

namespace schema = rapport::schema;

bool isComponentName(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

// decisions §1: every error is {"message"}; a 422 adds "errors", each field
// (dotted for nested ones) with its messages.
rapport::Json errorSchema() {
  return schema::object({{"message", schema::string("What went wrong, for a person.")}},
                        {"message"}, "The error envelope.");
}

rapport::Json validationErrorSchema() {
  return schema::object(
      {{"message", schema::string("The first field's first message.")},
       {"errors", schema::object({}, {},
                                 "Each field at fault (nested ones dotted: "
                                 "stages.0.name) with its messages.")
                      .set("additionalProperties", schema::arrayOf(schema::string()))}},
      {"message", "errors"}, "The error envelope of a 422.");
}

// pagination.h pageMeta.
rapport::Json pageMetaSchema() {
  return schema::object({{"current_page", schema::integer()},
                         {"per_page", schema::integer()},
                         {"total", schema::integer()},
                         {"last_page", schema::integer("At least 1.")}},
                        {"current_page", "per_page", "total", "last_page"},
                        "Where a page sits in its list.");
}

}  // namespace

ApiSchemas::ApiSchemas() {
  add("Error", errorSchema(), "host");
  add("ValidationError", validationErrorSchema(), "host");
  add("PageMeta", pageMetaSchema(), "host");
}

void ApiSchemas::add(const std::string& name, rapport::Json schema, const std::string& owner) {
  if (!isComponentName(name)) {
    throw std::logic_error("Schema name '" + name + "' of '" + owner +
                           "' is not a valid component name");
  }
  if (auto it = schemas_.find(name); it != schemas_.end()) {
    throw std::logic_error("Schema '" + name + "' of '" + owner + "' clashes with the one of '" +
                           it->second.owner + "'");
  }
  if (!schema.isObject()) {
    throw std::logic_error("Schema '" + name + "' of '" + owner + "' is not a JSON object");
  }
  schemas_.emplace(name, Entry{std::move(schema), owner});
}

const rapport::Json* ApiSchemas::find(const std::string& name) const {
  auto it = schemas_.find(name);
  return it == schemas_.end() ? nullptr : &it->second.schema;
}

rapport::Json ApiSchemas::all() const {
  rapport::Json out = rapport::Json::object();
  for (const auto& [name, entry] : schemas_) out.set(name, entry.schema);
  return out;
}

}  // namespace rapport::host
