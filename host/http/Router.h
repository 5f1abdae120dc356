// Maps (method, path) to the handler that serves it.
//
// Patterns are absolute paths whose segments are literals or "{name}"
// parameters: "/v1/crm/contacts/{id}", "/healthz". Matching walks a segment
// trie (no regular expressions), trying literal children before the
// parameter child, so "/v1/crm/pipelines/{id}/stages/reorder" wins over
// ".../stages/{stage_id}" for the methods it has. A path that several
// patterns match is served by the most literal pattern that has the
// request's method; when none has it the answer is 405 and `allowed` lists
// the methods of every pattern that matched, so Allow names exactly what
// would be accepted. HEAD and OPTIONS are not implied by GET.
//
// Paths are matched as sent: "/v1/x/" does not match "/v1/x", and a
// parameter never matches an empty segment. Parameter values are
// percent-decoded ('+' stays '+').
//
// Threading and lifetime: add() only during start-up, before serving;
// match() is const and safe from any number of threads afterwards. A Route
// found by match() lives as long as the Router.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rapport/api_doc.h"
#include "rapport/http.h"

namespace rapport::host {

// How the Pipeline writes a handler's Response: in the API's envelope, or
// its `data` alone as the whole body (the OpenAPI document, which tools read
// as it is).
enum class RouteBody { Envelope, DataOnly };

struct Route {
  std::string method;
  std::string pattern;
  std::string owner;  // module name ("contacts") or "host": named in logs and errors
  rapport::Handler handler;
  rapport::RouteOptions options;
  // Per pattern segment: the parameter name, or empty for a literal.
  std::vector<std::string> paramNames;
  RouteBody body = RouteBody::Envelope;
  // What the API document says about the route (api_doc.h); absent until
  // described.
  std::optional<rapport::RouteDoc> doc;
  // What RouteDoc cannot say (api_doc.h RouteDocExtra); absent: nothing.
  std::optional<rapport::RouteDocExtra> extra;
  // The scope an API key needs for this method (rapport::requiredScope of
  // options.scope): "contacts:read", "webhooks:manage", kAnyApiKey; empty:
  // refused to keys.
  std::string keyScope = {};
};

struct RouteMatch {
  enum class Kind { Found, NotFound, MethodNotAllowed };
  Kind kind = Kind::NotFound;
  const Route* route = nullptr;               // Found only
  std::map<std::string, std::string> params;  // Found only
  std::vector<std::string> allowed;           // MethodNotAllowed only; sorted
};

class Router {
 public:
  Router();
  ~Router();
  Router(const Router&) = delete;
  Router& operator=(const Router&) = delete;

  // Throws std::logic_error for a malformed method or pattern, and when the
  // same method and pattern (parameter names aside) are already registered;
  // that message names both owners so a module clash is found at start-up.
  void add(const std::string& method, const std::string& pattern, rapport::Handler handler,
           rapport::RouteOptions options, const std::string& owner,
           RouteBody body = RouteBody::Envelope);

  // Attaches the description of the route registered with exactly this
  // method and pattern. Throws std::logic_error when there is none, when
  // `owner` did not register it (a module describes only its own routes),
  // or when it is described already.
  void describe(const std::string& method, const std::string& pattern, rapport::RouteDoc doc,
                const std::string& owner);
  // Attaches the extra of a route `owner` described already; throws
  // std::logic_error as describe() does, when the route is not described,
  // or when it has an extra already.
  void describeExtra(const std::string& method, const std::string& pattern,
                     rapport::RouteDocExtra extra, const std::string& owner);

  // Every route, ordered by pattern then method (the API document's order).
  std::vector<const Route*> routes() const;
  // Every scope a key may hold here (decisions §15): "<name>:read" and
  // "<name>:write" of each resource scope the routes declared, each exact
  // scope they declared, the scopes of no resource and "*". Sorted.
  std::vector<std::string> scopes() const;

  RouteMatch match(std::string_view method, std::string_view path) const;

  // Number of registered routes.
  std::size_t size() const { return size_; }

  // Drops every route (and so every handler). The host calls it at shutdown,
  // after the server has drained and before module libraries are released.
  void clear();

  struct Node;  // a trie node; opaque, defined in Router.cpp

 private:
  // The route registered with exactly this method and pattern by `owner`;
  // throws std::logic_error starting with `what` otherwise.
  Route& ownRoute(const std::string& method, const std::string& pattern, const std::string& owner,
                  const std::string& what);

  std::unique_ptr<Node> root_;
  std::size_t size_ = 0;
};

}  // namespace rapport::host
