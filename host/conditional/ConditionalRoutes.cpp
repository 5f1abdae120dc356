#include "conditional/ConditionalRoutes.h"

#include <stdexcept>

#include "conditional/EntityTag.h"
#include "rapport/error.h"

namespace rapport::host {

namespace {

const char* const kChanged =
    "The record has changed since you read it: read it again, then retry with its new ETag.";

// The name of the last "{name}" segment of `pattern`, or empty.
std::string lastParameter(const std::string& pattern) {
  const std::size_t open = pattern.rfind('{');
  const std::size_t close = pattern.rfind('}');
  if (open == std::string::npos || close == std::string::npos || close < open) return {};
  return pattern.substr(open + 1, close - open - 1);
}

// True when `pattern` is `base` + "/" + one literal segment ("/win").
bool isActionBelow(const std::string& pattern, const std::string& base) {
  if (pattern.size() <= base.size() + 1 || pattern.compare(0, base.size(), base) != 0 ||
      pattern[base.size()] != '/') {
    return false;
  }
  const std::string rest = pattern.substr(base.size() + 1);
  return rest.find_first_of("/{") == std::string::npos;
}

EntityTagList headerList(const rapport::Request& request, std::string_view name) {
  const auto value = request.header(name);
  if (!value) return {};
  EntityTagList list = parseEntityTagList(*value);
  if (!list.valid) {
    throw rapport::Error::badRequest("The " + std::string(name) +
                                     " header is not a list of entity tags.");
  }
  return list;
}

}  // namespace

ConditionalRoutes::ConditionalRoutes(const Router& router, const std::vector<RecordPath>& records,
                                     const std::string& versionPrefix,
                                     const rapport::RecordDirectory& directory,
                                     rapport::Database& db)
    : directory_(directory), db_(db) {
  for (const RecordPath& record : records) {
    const std::string pattern = versionPrefix + record.path;
    const std::string param = lastParameter(pattern);
    if (param.empty()) {
      throw std::logic_error("record type '" + record.type + "': its path " + record.path +
                             " has no {id} parameter");
    }
    bool readable = false;
    for (const Route* route : router.routes()) {
      const bool exact = route->pattern == pattern;
      const std::string& m = route->method;
      if (exact && m == "GET") {
        targets_[route] = {Kind::Read, record.type, param};
        readable = true;
      } else if ((exact && (m == "PATCH" || m == "DELETE")) ||
                 (isActionBelow(route->pattern, pattern) &&
                  (m == "POST" || m == "PUT" || m == "PATCH"))) {
        targets_[route] = {Kind::Write, record.type, param};
      }
    }
    if (!readable) {
      throw std::logic_error("record type '" + record.type + "': no GET route at its path " +
                             record.path);
    }
  }
}

ConditionalRoutes::Kind ConditionalRoutes::kindOf(const Route& route) const {
  const Target* target = find(route);
  return target ? target->kind : Kind::None;
}

const ConditionalRoutes::Target* ConditionalRoutes::find(const Route& route) const {
  auto it = targets_.find(&route);
  return it == targets_.end() ? nullptr : &it->second;
}

std::string ConditionalRoutes::currentTag(rapport::Queryable& db, const std::string& companyId,
                                          const Target& target, const std::string& id,
                                          rapport::RecordLock lock) const {
  std::optional<rapport::Json> record = directory_.fetch(db, companyId, target.type, id, lock);
  if (!record) return {};
  // The record as its GET shows it: with the fields other modules add.
  rapport::Json::Array one{std::move(*record)};
  directory_.augment(db, companyId, target.type, one);
  return entityTagOf(one.front());
}

RequestTransactions::Hook ConditionalRoutes::before(const Route& route,
                                                    const rapport::Request& request) const {
  const Target* target = find(route);
  if (target == nullptr || target->kind != Kind::Write) return {};
  const EntityTagList expected = headerList(request, "If-Match");
  if (!expected.any && expected.tags.empty()) return {};
  const std::string id = request.param(target->param);
  const std::string& companyId = request.identity.companyId;
  auto check = [this, target, id, companyId, expected](rapport::Queryable& db,
                                                       rapport::RecordLock lock) {
    const std::string tag = currentTag(db, companyId, *target, id, lock);
    if (!tag.empty() && !matchesStrongly(expected, tag)) throw rapport::Error(412, kChanged);
  };
  check(db_, rapport::RecordLock::None);
  return [check](rapport::Tx& tx) { check(tx, rapport::RecordLock::Update); };
}

bool ConditionalRoutes::after(const Route& route, const rapport::Request& request,
                              rapport::Response& response) const {
  const Target* target = find(route);
  if (target == nullptr || target->kind != Kind::Read || response.status != 200 || !response.data) {
    return false;
  }
  const std::string tag = entityTagOf(*response.data);
  response.withHeader("ETag", tag);
  const EntityTagList cached = headerList(request, "If-None-Match");
  return matchesWeakly(cached, tag);
}

}  // namespace rapport::host
