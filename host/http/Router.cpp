#include "http/Router.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "http/UrlCoding.h"
#include "rapport/scopes.h"

namespace rapport::host {

struct Router::Node {
  std::map<std::string, std::unique_ptr<Node>, std::less<>> literals;
  std::unique_ptr<Node> param;
  std::map<std::string, std::unique_ptr<Route>, std::less<>> routes;  // by method
};

namespace {

// Deep paths are never routes; refusing them early bounds the work an
// adversarial path can cause.
constexpr std::size_t kMaxSegments = 32;

// "/a/b" -> {"a", "b"}; "/a/" -> {"a", ""}; "/" -> {""}. Empty when the path
// is not absolute or too deep.
std::vector<std::string_view> splitPath(std::string_view path) {
  std::vector<std::string_view> segments;
  if (path.empty() || path.front() != '/') return segments;
  path.remove_prefix(1);
  while (true) {
    const std::size_t slash = path.find('/');
    segments.push_back(path.substr(0, slash));
    if (segments.size() > kMaxSegments) return {};
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return segments;
}

bool isParamName(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

bool isMethod(std::string_view method) {
  return !method.empty() &&
         std::all_of(method.begin(), method.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
}

// "{id}" -> "id"; "" for a literal. Throws for anything half-way.
std::string paramNameOf(std::string_view segment, const std::string& pattern) {
  const bool opens = segment.find('{') != std::string_view::npos;
  const bool closes = segment.find('}') != std::string_view::npos;
  if (!opens && !closes) return {};
  if (segment.size() >= 3 && segment.front() == '{' && segment.back() == '}' &&
      isParamName(segment.substr(1, segment.size() - 2))) {
    return std::string(segment.substr(1, segment.size() - 2));
  }
  throw std::logic_error("Route pattern '" + pattern + "': bad parameter segment '" +
                         std::string(segment) + "'");
}

std::vector<std::string> parsePattern(const std::string& pattern) {
  const auto segments = splitPath(pattern);
  if (segments.empty()) {
    throw std::logic_error("Route pattern '" + pattern + "' must be an absolute path");
  }
  std::vector<std::string> names;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    // Only "/" itself may have an empty segment; "/a//b" or "/a/" are typos.
    if (segments[i].empty() && segments.size() > 1) {
      throw std::logic_error("Route pattern '" + pattern + "' has an empty segment");
    }
    std::string name = paramNameOf(segments[i], pattern);
    if (!name.empty() && std::find(names.begin(), names.end(), name) != names.end()) {
      throw std::logic_error("Route pattern '" + pattern + "' repeats parameter '" + name + "'");
    }
    names.push_back(std::move(name));
  }
  return names;
}

// Depth-first search in precedence order (literal before parameter). Stops
// at the first node that has `method`; otherwise gathers the methods of every
// node the path reaches.
struct Search {
  const std::vector<std::string_view>& segments;
  std::string_view method;
  const Route* found = nullptr;
  std::vector<std::string> allowed;

  void visit(const Router::Node& node, std::size_t depth);
};

}  // namespace

void Search::visit(const Router::Node& node, std::size_t depth) {
  if (found) return;
  if (depth == segments.size()) {
    if (auto it = node.routes.find(method); it != node.routes.end()) {
      found = it->second.get();
      return;
    }
    for (const auto& [name, route] : node.routes) allowed.push_back(name);
    return;
  }
  const std::string_view segment = segments[depth];
  if (auto it = node.literals.find(segment); it != node.literals.end()) {
    visit(*it->second, depth + 1);
  }
  if (node.param && !segment.empty()) visit(*node.param, depth + 1);
}

Router::Router() : root_(std::make_unique<Node>()) {}

void Router::clear() {
  root_ = std::make_unique<Node>();
  size_ = 0;
}
Router::~Router() = default;

void Router::add(const std::string& method, const std::string& pattern, rapport::Handler handler,
                 rapport::RouteOptions options, const std::string& owner, RouteBody body) {
  if (!isMethod(method)) throw std::logic_error("Route method '" + method + "' is not a method");
  if (!handler) throw std::logic_error("Route " + method + " " + pattern + " has no handler");
  if (!rapport::isValidScopeDeclaration(options.scope)) {
    throw std::logic_error("Route " + method + " " + pattern + " of '" + owner +
                           "' declares a malformed scope '" + options.scope + "'");
  }
  std::string keyScope = rapport::requiredScope(options.scope, method);
  auto names = parsePattern(pattern);
  const auto segments = splitPath(pattern);
  Node* node = root_.get();
  for (std::size_t i = 0; i < segments.size(); ++i) {
    std::unique_ptr<Node>& child =
        names[i].empty() ? node->literals[std::string(segments[i])] : node->param;
    if (!child) child = std::make_unique<Node>();
    node = child.get();
  }
  if (auto it = node->routes.find(method); it != node->routes.end()) {
    throw std::logic_error("Route " + method + " " + pattern + " of '" + owner + "' clashes with " +
                           method + " " + it->second->pattern + " of '" + it->second->owner + "'");
  }
  node->routes.emplace(method, std::make_unique<Route>(Route{method,
                                                             pattern,
                                                             owner,
                                                             std::move(handler),
                                                             std::move(options),
                                                             std::move(names),
                                                             body,
                                                             {},
                                                             {},
                                                             std::move(keyScope)}));
  ++size_;
}

Route& Router::ownRoute(const std::string& method, const std::string& pattern,
                        const std::string& owner, const std::string& what) {
  const auto names = parsePattern(pattern);
  const auto segments = splitPath(pattern);
  const Node* node = root_.get();
  for (std::size_t i = 0; i < segments.size() && node; ++i) {
    if (names[i].empty()) {
      auto it = node->literals.find(segments[i]);
      node = it == node->literals.end() ? nullptr : it->second.get();
    } else {
      node = node->param.get();
    }
  }
  if (!node) throw std::logic_error(what + ": no such route");
  const auto it = node->routes.find(method);
  if (it == node->routes.end()) throw std::logic_error(what + ": no such route");
  Route& route = *it->second;
  if (route.owner != owner) {
    throw std::logic_error(what + ": the route belongs to '" + route.owner + "'");
  }
  return route;
}

void Router::describe(const std::string& method, const std::string& pattern, rapport::RouteDoc doc,
                      const std::string& owner) {
  const std::string what = "Route description " + method + " " + pattern + " of '" + owner + "'";
  Route& route = ownRoute(method, pattern, owner, what);
  if (route.doc) throw std::logic_error(what + ": described twice");
  route.doc = std::move(doc);
}

void Router::describeExtra(const std::string& method, const std::string& pattern,
                           rapport::RouteDocExtra extra, const std::string& owner) {
  const std::string what = "Route extra " + method + " " + pattern + " of '" + owner + "'";
  Route& route = ownRoute(method, pattern, owner, what);
  if (!route.doc) throw std::logic_error(what + ": not described yet");
  if (route.extra) throw std::logic_error(what + ": given twice");
  route.extra = std::move(extra);
}

namespace {

void collect(const Router::Node& node, std::vector<const Route*>& out) {
  for (const auto& [method, route] : node.routes) out.push_back(route.get());
  for (const auto& [segment, child] : node.literals) collect(*child, out);
  if (node.param) collect(*node.param, out);
}

}  // namespace

std::vector<const Route*> Router::routes() const {
  std::vector<const Route*> out;
  collect(*root_, out);
  std::sort(out.begin(), out.end(), [](const Route* a, const Route* b) {
    return a->pattern != b->pattern ? a->pattern < b->pattern : a->method < b->method;
  });
  return out;
}

std::vector<std::string> Router::scopes() const {
  // Scopes of what no route serves yet (imports and exports, decisions §17)
  // are grantable already, so keys made today keep working then.
  std::set<std::string> out = {"webhooks:manage", "events:read",
                               "fields:manage",   "imports:write",
                               "exports:read",    std::string(rapport::kEveryScope)};
  for (const Route* route : routes()) {
    const std::string& declared = route->options.scope;
    if (declared.empty() || declared == rapport::kAnyApiKey) continue;
    if (declared.find(':') != std::string::npos) {
      out.insert(declared);
    } else if (declared != rapport::kEveryScope) {
      out.insert(declared + ":read");
      out.insert(declared + ":write");
    }
  }
  return {out.begin(), out.end()};
}

RouteMatch Router::match(std::string_view method, std::string_view path) const {
  RouteMatch result;
  const auto segments = splitPath(path);
  if (segments.empty()) return result;
  Search search{segments, method, nullptr, {}};
  search.visit(*root_, 0);
  if (search.found) {
    result.kind = RouteMatch::Kind::Found;
    result.route = search.found;
    for (std::size_t i = 0; i < segments.size(); ++i) {
      const std::string& name = search.found->paramNames[i];
      if (!name.empty()) result.params.emplace(name, percentDecode(segments[i], false));
    }
  } else if (!search.allowed.empty()) {
    result.kind = RouteMatch::Kind::MethodNotAllowed;
    std::sort(search.allowed.begin(), search.allowed.end());
    search.allowed.erase(std::unique(search.allowed.begin(), search.allowed.end()),
                         search.allowed.end());
    result.allowed = std::move(search.allowed);
  }
  return result;
}

}  // namespace rapport::host
