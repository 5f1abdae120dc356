// Request helpers and Response factories shared by every handler.
#include "rapport/http.h"

#include <algorithm>
#include <stdexcept>

#include "rapport/error.h"

namespace rapport {
namespace {

char asciiLower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

}  // namespace

bool HeaderNameLess::operator()(const std::string& a, const std::string& b) const {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return static_cast<unsigned char>(asciiLower(x)) < static_cast<unsigned char>(asciiLower(y));
  });
}

const std::string& Request::param(std::string_view name) const {
  auto it = pathParams.find(std::string(name));
  if (it == pathParams.end()) {
    throw std::logic_error("Request: no path parameter " + std::string(name));
  }
  return it->second;
}

std::optional<std::string> Request::queryParam(std::string_view name) const {
  auto it = query.find(std::string(name));
  if (it == query.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> Request::header(std::string_view name) const {
  auto it = headers.find(std::string(name));
  if (it == headers.end()) return std::nullopt;
  return it->second;
}

// An anonymous caller has no role at all: that is a 401, not a 403 (and the
// default Identity's Member role must not let it through).
void Request::requireRole(std::initializer_list<Role> allowed) const {
  if (!identity.authenticated) throw Error::unauthorized();
  if (std::find(allowed.begin(), allowed.end(), identity.role) == allowed.end()) {
    throw Error::forbidden();
  }
}

const Json& Request::bodyObject() const {
  static const Json empty = Json::object();
  return body.isObject() ? body : empty;
}

Response Response::ok(Json data, std::string message) {
  Response response;
  response.message = std::move(message);
  response.data = std::move(data);
  return response;
}

Response Response::created(Json data, std::string message) {
  Response response = ok(std::move(data), std::move(message));
  response.status = 201;
  return response;
}

Response Response::list(Json data, Json meta, std::string message) {
  Response response = ok(std::move(data), std::move(message));
  response.meta = std::move(meta);
  return response;
}

Response Response::messageOnly(std::string message, int status) {
  Response response;
  response.status = status;
  response.message = std::move(message);
  return response;
}

Response& Response::withHeader(std::string name, std::string value) {
  headers.emplace_back(std::move(name), std::move(value));
  return *this;
}

}  // namespace rapport
