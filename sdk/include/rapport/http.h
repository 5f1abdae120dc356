// Requests and responses as a module handler sees them.
//
// The host parses the request once (path parameters, query, JSON body,
// identity from the bearer token) before the handler runs, and renders the
// Response into the API's envelope afterwards:
//   {"message": ..., "data": ..., "meta": ...}
//
// Threading: a Request is owned by the worker thread serving it and lives
// until the handler returns. Handlers run concurrently on many threads and
// must not keep references to the Request.
#pragma once

#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rapport/export.h"
#include "rapport/json.h"
#include "rapport/roles.h"

namespace rapport {

// Case-insensitive ordering for header names.
struct RAPPORT_SDK_API HeaderNameLess {
  bool operator()(const std::string& a, const std::string& b) const;
};
using Headers = std::map<std::string, std::string, HeaderNameLess>;

// Since 10.0. Who stands behind a bearer token (decisions §15): a person's
// session token ("rpt_...") or a company's API key ("rk_...").
enum class Principal { User, ApiKey };

// Who is calling, resolved by the host from the bearer token alone.
struct Identity {
  bool authenticated = false;
  std::string userId;     // user_...; empty for an API key
  std::string companyId;  // comp_... (the tenant company the token resolves)
  // A user's role in the company; an API key acts as Admin (never Owner).
  Role role = Role::Member;
  // Opaque id of the token record (never the token itself); an API key's
  // own id (key_...).
  std::string tokenId;
  // --- Since 10.0 ---
  Principal principal = Principal::User;
  // An API key's scopes (scopes.h); empty for a user, who is never asked.
  std::vector<std::string> scopes = {};

  bool isApiKey() const { return principal == Principal::ApiKey; }
  // Whom events and history name as the actor: user_... or key_...
  const std::string& principalId() const { return isApiKey() ? tokenId : userId; }
};

class RAPPORT_SDK_API Request {
 public:
  std::string method;         // "GET", "POST", ...
  std::string path;           // full path, for example "/v1/crm/contacts/cont_x"
  std::string apiVersion;     // "v1"
  std::string requestId;      // also sent back as X-Request-Id
  std::string clientAddress;  // peer address, without port
  Headers headers;
  std::map<std::string, std::string> pathParams;  // from "{name}" segments
  std::map<std::string, std::string> query;       // first value of each query key, decoded
  Json body;  // parsed JSON object; null when the request had no body
  bool hasBody = false;
  Identity identity;

  // Path parameter by name; throws std::logic_error if the route has no such segment.
  const std::string& param(std::string_view name) const;
  // Query parameter, or nullopt when absent.
  std::optional<std::string> queryParam(std::string_view name) const;
  // Header value, or nullopt when absent.
  std::optional<std::string> header(std::string_view name) const;
  // Throws Error::forbidden unless the caller's role is one of `allowed`.
  void requireRole(std::initializer_list<Role> allowed) const;
  // The request body as an object; an absent body reads as an empty object.
  const Json& bodyObject() const;
};

class RAPPORT_SDK_API Response {
 public:
  int status = 200;
  std::string message;
  std::optional<Json> data;
  std::optional<Json> meta;
  std::vector<std::pair<std::string, std::string>> headers;

  static Response ok(Json data, std::string message = "OK.");
  static Response created(Json data, std::string message = "Created.");
  static Response list(Json data, Json meta, std::string message = "OK.");
  static Response messageOnly(std::string message, int status = 200);
  Response& withHeader(std::string name, std::string value);
};

using Handler = std::function<Response(const Request&)>;

enum class Access {
  Public,         // no token needed (register, login, versions)
  Authenticated,  // a valid token; 401 otherwise
};

struct RouteOptions {
  Access access = Access::Authenticated;
  // Roles allowed to call the route; empty means every member of the company.
  std::vector<Role> roles = {};
  // Since 10.0. What an API key must hold to call the route (scopes.h):
  //   "contacts"        the resource's scope name: GET needs contacts:read,
  //                     every other method contacts:write;
  //   "contacts:read"   exactly that scope (POST <path>/search reads);
  //   "webhooks:manage" likewise, for the scopes of no resource;
  //   kAnyApiKey        every key (GET /auth/me);
  //   ""                refused to API keys: 403 (deny by default).
  // Users are never asked for scopes. Registry::route refuses a malformed one.
  std::string scope = {};
};

}  // namespace rapport
