#include "http/RequestBuilder.h"

#include <algorithm>

#include "http/UrlCoding.h"
#include "rapport/error.h"
#include "rapport/json.h"
#include "rapport/validation.h"

namespace rapport::host {
namespace {

bool carriesJsonBody(const std::string& method) {
  return method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE";
}

void readBody(const RawRequest& raw, rapport::Request& request) {
  if (raw.body.empty() || !carriesJsonBody(raw.method)) return;
  rapport::Json body;
  try {
    body = rapport::Json::parse(raw.body);
  } catch (const rapport::JsonParseError&) {
    throw rapport::Error::badRequest("Malformed request: the body is not valid JSON.");
  }
  if (!body.isObject()) {
    throw rapport::Error::badRequest("Malformed request: the body must be a JSON object.");
  }
  request.body = std::move(body);
  request.hasBody = true;
}

// Path and query values reach SQL as bound text: PostgreSQL refuses bytes
// that are not UTF-8, and NUL, in any text (a 500 from deep inside a module).
// They are checked here, once, so no handler ever meets one: a path
// parameter that cannot be an id of anything answers 404 like a missing
// record; a query value answers 422 naming its parameter.
void requireTextValues(const rapport::Request& request) {
  for (const auto& [name, value] : request.pathParams) {
    if (!rapport::isValidUtf8(value)) throw rapport::Error::notFound();
  }
  rapport::FieldErrors errors;
  for (const auto& [name, value] : request.query) {
    if (!rapport::isValidUtf8(name)) {
      throw rapport::Error::badRequest(
          "Malformed request: a query parameter name is not valid UTF-8.");
    }
    if (!rapport::isValidUtf8(value)) {
      errors[name].push_back("The " + name + " must be valid UTF-8 text without null characters.");
    }
  }
  if (!errors.empty()) throw rapport::Error::validation(std::move(errors));
}

}  // namespace

std::string versionSegment(const std::string& path) {
  if (path.size() < 3 || path[0] != '/' || path[1] != 'v') return {};
  const std::size_t end = std::min(path.find('/', 1), path.size());
  const bool numeric = end > 2 && std::all_of(path.begin() + 2, path.begin() + end,
                                              [](char c) { return c >= '0' && c <= '9'; });
  return numeric ? path.substr(1, end - 1) : std::string{};
}

rapport::Request buildRequest(const RawRequest& raw, RouteMatch&& match,
                              const std::string& requestId,
                              const std::optional<rapport::Identity>& identity) {
  rapport::Request request;
  request.method = raw.method;
  request.path = raw.path;
  request.apiVersion = versionSegment(raw.path);
  request.requestId = requestId;
  request.clientAddress = raw.clientAddress;
  request.headers = raw.headers;
  // The company comes from the token alone (decisions §1): a company header
  // is dropped so no handler can be tempted to read it.
  request.headers.erase("X-Company-Id");
  request.pathParams = std::move(match.params);
  request.query = parseQuery(raw.query);
  if (identity) request.identity = *identity;
  requireTextValues(request);
  readBody(raw, request);
  return request;
}

}  // namespace rapport::host
