#include "rapport/api_doc.h"

namespace rapport::schema {
namespace {

Json typed(const char* type, const std::string& description) {
  Json out = Json::object({{"type", type}});
  if (!description.empty()) out.set("description", description);
  return out;
}

Json formatted(const char* format, const std::string& description) {
  return typed("string", description).set("format", format);
}

}  // namespace

Json string(const std::string& description) {
  return typed("string", description);
}

Json text(std::int64_t maxLength, const std::string& description) {
  return typed("string", description).set("minLength", 1).set("maxLength", maxLength);
}

Json optionalText(std::int64_t maxLength, const std::string& description) {
  const std::string blank = "Blank text clears it (stored as null).";
  return nullable(typed("string", description.empty() ? blank : description + " " + blank)
                      .set("maxLength", maxLength));
}

Json integer(const std::string& description) {
  return typed("integer", description);
}

Json integerBetween(std::int64_t min, std::int64_t max, const std::string& description) {
  return typed("integer", description).set("minimum", min).set("maximum", max);
}

Json money(const std::string& description) {
  return typed("integer", description.empty() ? "Integer cents." : description).set("minimum", 0);
}

Json boolean(const std::string& description) {
  return typed("boolean", description);
}

Json timestamp(const std::string& description) {
  return formatted("date-time", description);
}

Json date(const std::string& description) {
  return formatted("date", description);
}

Json email(const std::string& description) {
  return formatted("email", description);
}

Json url(const std::string& description) {
  return formatted("uri", description);
}

Json id(const std::string& prefix, const std::string& description) {
  return typed("string", description).set("pattern", "^" + prefix);
}

Json enumOf(const std::vector<std::string>& values, const std::string& description) {
  Json list = Json::array();
  for (const auto& value : values) list.push(value);
  return typed("string", description).set("enum", std::move(list));
}

Json arrayOf(Json items, const std::string& description) {
  return typed("array", description).set("items", std::move(items));
}

Json object(Properties properties, std::vector<std::string> required,
            const std::string& description) {
  Json props = Json::object();
  for (auto& [name, schema] : properties) props.set(name, std::move(schema));
  Json out = typed("object", description).set("properties", std::move(props));
  if (!required.empty()) {
    Json names = Json::array();
    for (auto& name : required) names.push(std::move(name));
    out.set("required", std::move(names));
  }
  return out;
}

Json anyObject(const std::string& description) {
  return typed("object", description);
}

// JSON Schema 2020-12 spells "or null" as a type list; a schema without a
// single "type" (a $ref, an anyOf) is wrapped instead.
Json nullable(Json schema) {
  const Json* type = schema.find("type");
  if (type && type->isString()) {
    const std::string name = type->asString();
    schema.set("type", Json(Json::Array{Json(name), Json("null")}));
    if (const Json* values = schema.find("enum")) {
      Json withNull = *values;
      withNull.push(nullptr);
      schema.set("enum", std::move(withNull));
    }
    return schema;
  }
  return Json::object({{"anyOf", Json(Json::Array{std::move(schema), typed("null", "")})}});
}

Json ref(const std::string& name) {
  return Json::object({{"$ref", "#/components/schemas/" + name}});
}

Json deleted(const std::string& idPrefix) {
  return object({{"id", id(idPrefix)}}, {"id"});
}

Json anyOf(std::vector<Json> options, const std::string& description) {
  Json out = Json::object({{"anyOf", Json(Json::Array(std::move(options)))}});
  if (!description.empty()) out.set("description", description);
  return out;
}

Json pageQuery(const std::vector<std::string>& sortFields, const std::string& defaultSort,
               Properties filters) {
  std::vector<std::string> orders;
  for (const std::string& field : sortFields) {
    orders.push_back(field);
    orders.push_back("-" + field);
  }
  Properties properties = {
      {"page", integer("1 or more; default 1.").set("minimum", 1)},
      {"per_page", integerBetween(1, 100, "Default 20.")},
      {"sort", enumOf(orders, "A field, or -field for descending; default " + defaultSort + ".")}};
  for (auto& filter : filters) properties.push_back(std::move(filter));
  return object(std::move(properties));
}

}  // namespace rapport::schema
