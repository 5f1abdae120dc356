#include "openapi/SchemaCheck.h"

#include <algorithm>
#include <regex>

namespace rapport::host {
namespace {

using rapport::Json;

const char* typeName(const Json& value) {
  switch (value.type()) {
    case Json::Type::Null:
      return "null";
    case Json::Type::Bool:
      return "boolean";
    case Json::Type::Int:
      return "integer";
    case Json::Type::Double:
      return "number";
    case Json::Type::String:
      return "string";
    case Json::Type::Array:
      return "array";
    case Json::Type::Object:
      return "object";
  }
  return "?";
}

bool hasType(const Json& value, const std::string& type) {
  if (type == "number") return value.isNumber();
  return type == typeName(value);
}

std::size_t characters(const std::string& text) {
  std::size_t count = 0;
  for (unsigned char c : text) count += (c & 0xC0) != 0x80;
  return count;
}

bool matchesFormat(const std::string& text, const std::string& format) {
  static const std::regex dateTime(R"(^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$)");
  static const std::regex date(R"(^\d{4}-\d{2}-\d{2}$)");
  static const std::regex email(R"(^[^@\s]+@[^@\s]+$)");
  static const std::regex uri(R"(^[A-Za-z][A-Za-z0-9+.-]*:\S+$)");
  if (format == "date-time") return std::regex_match(text, dateTime);
  if (format == "date") return std::regex_match(text, date);
  if (format == "email") return std::regex_match(text, email);
  if (format == "uri") return std::regex_match(text, uri);
  return true;
}

class Checker {
 public:
  explicit Checker(const ApiSchemas& schemas) : schemas_(schemas) {}

  std::string check(const Json& value, const Json& schema, const std::string& at, int depth) {
    if (depth > 32) return at + ": schema nests too deep (a $ref cycle?)";
    if (!schema.isObject()) return {};
    if (const Json* ref = schema.find("$ref")) return checkRef(value, *ref, at, depth);
    if (const Json* anyOf = schema.find("anyOf")) {
      std::string first;
      for (const auto& option : anyOf->asArray()) {
        std::string problem = check(value, option, at, depth + 1);
        if (problem.empty()) return {};
        if (first.empty()) first = problem;
      }
      return at + ": matches none of anyOf (first: " + first + ")";
    }
    if (std::string problem = checkType(value, schema, at); !problem.empty()) return problem;
    if (const Json* values = schema.find("enum")) {
      const auto& list = values->asArray();
      if (std::find(list.begin(), list.end(), value) == list.end()) {
        return at + ": " + value.dump() + " is not one of " + values->dump();
      }
    }
    if (value.isString()) return checkString(value.asString(), schema, at);
    if (value.isInt()) return checkInteger(value.asInt(), schema, at);
    if (value.isArray()) return checkArray(value, schema, at, depth);
    if (value.isObject()) return checkObject(value, schema, at, depth);
    return {};
  }

 private:
  std::string checkRef(const Json& value, const Json& ref, const std::string& at, int depth) {
    static const std::string prefix = "#/components/schemas/";
    const std::string& target = ref.asString();
    const Json* schema =
        target.rfind(prefix, 0) == 0 ? schemas_.find(target.substr(prefix.size())) : nullptr;
    if (!schema) return at + ": unknown $ref " + target;
    return check(value, *schema, at, depth + 1);
  }

  std::string checkType(const Json& value, const Json& schema, const std::string& at) {
    const Json* type = schema.find("type");
    if (!type) return {};
    if (type->isString()) {
      if (hasType(value, type->asString())) return {};
      return at + ": expected " + type->asString() + ", got " + typeName(value);
    }
    for (const auto& name : type->asArray()) {
      if (hasType(value, name.asString())) return {};
    }
    return at + ": expected one of " + type->dump() + ", got " + typeName(value);
  }

  std::string checkString(const std::string& text, const Json& schema, const std::string& at) {
    const std::size_t length = characters(text);
    if (const Json* min = schema.find("minLength"); min && length < std::size_t(min->asInt())) {
      return at + ": shorter than " + min->dump() + " characters";
    }
    if (const Json* max = schema.find("maxLength"); max && length > std::size_t(max->asInt())) {
      return at + ": longer than " + max->dump() + " characters";
    }
    if (const Json* pattern = schema.find("pattern")) {
      if (!std::regex_search(text, std::regex(pattern->asString()))) {
        return at + ": \"" + text + "\" does not match " + pattern->asString();
      }
    }
    if (const Json* format = schema.find("format")) {
      if (!matchesFormat(text, format->asString())) {
        return at + ": \"" + text + "\" is not a " + format->asString();
      }
    }
    return {};
  }

  std::string checkInteger(std::int64_t number, const Json& schema, const std::string& at) {
    if (const Json* min = schema.find("minimum"); min && number < min->asInt()) {
      return at + ": " + std::to_string(number) + " is below " + min->dump();
    }
    if (const Json* max = schema.find("maximum"); max && number > max->asInt()) {
      return at + ": " + std::to_string(number) + " is above " + max->dump();
    }
    return {};
  }

  std::string checkArray(const Json& value, const Json& schema, const std::string& at, int depth) {
    const Json* items = schema.find("items");
    if (!items) return {};
    const auto& list = value.asArray();
    for (std::size_t i = 0; i < list.size(); ++i) {
      std::string problem = check(list[i], *items, at + "." + std::to_string(i), depth + 1);
      if (!problem.empty()) return problem;
    }
    return {};
  }

  std::string checkObject(const Json& value, const Json& schema, const std::string& at, int depth) {
    if (const Json* required = schema.find("required")) {
      for (const auto& name : required->asArray()) {
        if (!value.contains(name.asString())) {
          return at + ": the required property \"" + name.asString() + "\" is missing";
        }
      }
    }
    const Json* properties = schema.find("properties");
    const Json* additional = schema.find("additionalProperties");
    for (const auto& [name, member] : value.asObject()) {
      const Json* property = properties ? properties->find(name) : nullptr;
      std::string problem;
      if (property) {
        problem = check(member, *property, at + "." + name, depth + 1);
      } else if (additional && additional->isBool() && !additional->asBool()) {
        problem = at + ": the property \"" + name + "\" is not allowed";
      } else if (additional && additional->isObject()) {
        problem = check(member, *additional, at + "." + name, depth + 1);
      }
      if (!problem.empty()) return problem;
    }
    return {};
  }

  const ApiSchemas& schemas_;
};

}  // namespace

std::string schemaMismatch(const rapport::Json& value, const rapport::Json& schema,
                           const ApiSchemas& schemas, const std::string& at) {
  return Checker(schemas).check(value, schema, at, 0);
}

}  // namespace rapport::host
