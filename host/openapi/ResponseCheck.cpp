#include "openapi/ResponseCheck.h"

#include <algorithm>

#include "openapi/SchemaCheck.h"
#include "rapport/api_doc.h"

namespace rapport::host {
namespace {

using rapport::Json;

// `value` itself, or the component its "$ref" names ("#/components/<kind>/X").
const Json* resolved(const Json& document, const Json* value, const std::string& kind) {
  if (!value || !value->isObject()) return value;
  const Json* ref = value->find("$ref");
  if (!ref) return value;
  const std::string prefix = "#/components/" + kind + "/";
  const std::string& target = ref->asString();
  if (target.rfind(prefix, 0) != 0) return nullptr;
  const Json* components = document.find("components");
  const Json* group = components ? components->find(kind) : nullptr;
  return group ? group->find(target.substr(prefix.size())) : nullptr;
}

std::string declaredStatuses(const Json& responses) {
  std::string out;
  for (const auto& [status, answer] : responses.asObject())
    out += (out.empty() ? "" : ", ") + status;
  return out;
}

bool isInteger(const std::string& text) {
  std::size_t start = !text.empty() && text.front() == '-' ? 1 : 0;
  return text.size() > start &&
         std::all_of(text.begin() + start, text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string headersMismatch(const Json& document, const Json& answer, const RawResponse& response) {
  const Json* headers = answer.find("headers");
  if (!headers) return {};
  for (const auto& [name, declared] : headers->asObject()) {
    const Json* header = resolved(document, &declared, "headers");
    if (!header) return "header " + name + ": unknown $ref";
    const std::string* value = response.header(name);
    const Json* required = header->find("required");
    if (!value) {
      if (required && required->asBool()) return "the required header " + name + " is missing";
      continue;
    }
    const Json* schema = header->find("schema");
    const Json* type = schema ? schema->find("type") : nullptr;
    if (type && type->isString() && type->asString() == "integer" && !isInteger(*value)) {
      return "header " + name + ": \"" + *value + "\" is not an integer";
    }
  }
  return {};
}

std::string bodyMismatch(const ApiDocument& document, const Route& route, const Json& answer,
                         const RawResponse& response) {
  const Json* content = answer.find("content");
  const Json* media = content ? content->find("application/json") : nullptr;
  if (!media) return response.body.empty() ? "" : "a body sent, none declared";
  Json body;
  try {
    body = Json::parse(response.body);
  } catch (const std::exception&) {
    return "the body is not JSON";
  }
  const Json* schema = media->find("schema");
  if (schema) {
    if (std::string problem = schemaMismatch(body, *schema, document.schemas(), "body");
        !problem.empty()) {
      return problem;
    }
  }
  // The envelope's schema allows more properties; `data` on a route whose
  // success describes none is the one the document would hide.
  const bool success = response.status >= 200 && response.status <= 299;
  if (success && route.body == RouteBody::Envelope && route.doc && route.doc->data.isNull() &&
      body.isObject() && body.contains("data")) {
    return "data sent, none described";
  }
  return {};
}

}  // namespace

std::string responseMismatch(const ApiDocument& document, const Route& route,
                             const RawResponse& response) {
  const Json& doc = document.get();
  const Json* operation = operationOf(doc, route);
  const Json* responses = operation ? operation->find("responses") : nullptr;
  if (!responses) return "the document has no operation " + route.method + " " + route.pattern;
  // "default" stands for every status not listed (an undescribed route's).
  const Json* listed = responses->find(std::to_string(response.status));
  const Json* answer = resolved(doc, listed ? listed : responses->find("default"), "responses");
  if (!answer) {
    return "status " + std::to_string(response.status) +
           " is not declared (declared: " + declaredStatuses(*responses) + ")";
  }
  if (std::string problem = headersMismatch(doc, *answer, response); !problem.empty()) {
    return "status " + std::to_string(response.status) + ": " + problem;
  }
  if (std::string problem = bodyMismatch(document, route, *answer, response); !problem.empty()) {
    return "status " + std::to_string(response.status) + ": " + problem;
  }
  return {};
}

}  // namespace rapport::host
