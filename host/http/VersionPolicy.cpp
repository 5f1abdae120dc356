#include "http/VersionPolicy.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "http/IsoInstant.h"

namespace rapport::host {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

std::vector<std::string> commaList(const std::string& text) {
  std::vector<std::string> items;
  std::string_view rest = text;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = trim(rest.substr(0, comma));
    if (!item.empty()) items.emplace_back(item);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  }
  return items;
}

// An unset key and an empty value both mean "not configured": environment
// overrides can only blank a key, not remove it.
std::optional<std::string> optionalKey(const rapport::Config& config, const std::string& key) {
  if (!config.has(key)) return std::nullopt;
  std::string value(trim(config.getString(key, "")));
  if (value.empty()) return std::nullopt;
  return value;
}

std::optional<std::string> dateKey(const rapport::Config& config, const std::string& key) {
  auto value = optionalKey(config, key);
  if (value && !parseIsoInstant(*value)) {
    throw std::invalid_argument(key + ": '" + *value +
                                "' is not an ISO-8601 date (YYYY-MM-DD) or date-time");
  }
  return value;
}

// Reads <base>.deprecated_at, .sunset_at, .link and .successor.
DeprecationNotice readNotice(const rapport::Config& config, const std::string& base) {
  DeprecationNotice notice;
  notice.deprecatedAt = dateKey(config, base + ".deprecated_at");
  notice.sunsetAt = dateKey(config, base + ".sunset_at");
  if (notice.sunsetAt) notice.sunsetMicros = parseIsoInstant(*notice.sunsetAt);
  notice.link = optionalKey(config, base + ".link");
  notice.successor = optionalKey(config, base + ".successor");
  return notice;
}

ApiVersion readVersion(const rapport::Config& config, const std::string& name) {
  if (name.find('/') != std::string::npos) {
    throw std::invalid_argument("versions: '" + name + "' is not a path segment");
  }
  const std::string base = "versions." + name;
  ApiVersion version;
  version.name = name;
  version.status = config.getString(base + ".status", "active");
  std::transform(version.status.begin(), version.status.end(), version.status.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (version.status != "active" && version.status != "deprecated" && version.status != "sunset") {
    throw std::invalid_argument(base + ".status: expected active, deprecated or sunset, got '" +
                                version.status + "'");
  }
  version.releasedAt = dateKey(config, base + ".released_at").value_or("2026-01-01");
  version.docsUrl =
      optionalKey(config, base + ".docs_url").value_or("https://docs.rapport.dev/" + name);
  version.notice = readNotice(config, base);
  return version;
}

DeprecationRule readRule(const rapport::Config& config, const std::string& name) {
  const std::string base = "deprecations." + name;
  DeprecationRule rule;
  rule.name = name;
  rule.prefix = optionalKey(config, base + ".prefix").value_or("");
  while (rule.prefix.size() > 1 && rule.prefix.back() == '/') rule.prefix.pop_back();
  if (rule.prefix.size() < 2 || rule.prefix.front() != '/') {
    throw std::invalid_argument(base + ".prefix: expected an absolute path such as /v1/crm/legacy");
  }
  rule.notice = readNotice(config, base);
  return rule;
}

// Segment-boundary prefix: "/v1/crm/legacy" covers "/v1/crm/legacy" and
// "/v1/crm/legacy/x", never "/v1/crm/legacyx".
bool covers(std::string_view prefix, std::string_view path) {
  return path.substr(0, prefix.size()) == prefix &&
         (path.size() == prefix.size() || path[prefix.size()] == '/');
}

bool sunsetReached(const DeprecationNotice& notice, std::int64_t nowMicros) {
  return notice.sunsetMicros && nowMicros >= *notice.sunsetMicros;
}

std::vector<std::pair<std::string, std::string>> headersFor(const DeprecationNotice& notice) {
  std::vector<std::pair<std::string, std::string>> headers;
  // Without a configured date the resource is still deprecated; "true" is
  // the value the IETF draft used for exactly that case.
  headers.emplace_back("Deprecation", notice.deprecatedAt.value_or("true"));
  if (notice.sunsetAt) headers.emplace_back("Sunset", *notice.sunsetAt);
  std::string link;
  if (notice.link) link = "<" + *notice.link + ">; rel=\"deprecation\"";
  if (notice.successor) {
    if (!link.empty()) link += ", ";
    link += "<" + *notice.successor + ">; rel=\"successor-version\"";
  }
  if (!link.empty()) headers.emplace_back("Link", std::move(link));
  return headers;
}

rapport::Json nullable(const std::optional<std::string>& value) {
  return value ? rapport::Json(*value) : rapport::Json();
}

}  // namespace

VersionPolicy::VersionPolicy(const rapport::Config& config) {
  for (const auto& name : commaList(config.getString("versions", "v1"))) {
    versions_.push_back(readVersion(config, name));
  }
  for (const auto& name : commaList(config.getString("deprecations", ""))) {
    rules_.push_back(readRule(config, name));
  }
}

const ApiVersion* VersionPolicy::versionOf(std::string_view path) const {
  if (path.empty() || path.front() != '/') return nullptr;
  const std::string_view segment = path.substr(1, path.find('/', 1) - 1);
  for (const auto& version : versions_) {
    if (version.name == segment) return &version;
  }
  return nullptr;
}

// The longest matching prefix wins: a narrower rule is the operator's more
// specific statement.
const DeprecationRule* VersionPolicy::ruleFor(std::string_view path) const {
  const DeprecationRule* best = nullptr;
  for (const auto& rule : rules_) {
    if (covers(rule.prefix, path) && (!best || rule.prefix.size() > best->prefix.size())) {
      best = &rule;
    }
  }
  return best;
}

VersionVerdict VersionPolicy::evaluate(std::string_view path, std::int64_t nowMicros) const {
  VersionVerdict verdict;
  const ApiVersion* version = versionOf(path);
  if (const DeprecationRule* rule = ruleFor(path)) {
    verdict.headers = headersFor(rule->notice);
    if (sunsetReached(rule->notice, nowMicros)) {
      verdict.gone = true;
      verdict.goneMessage = "This endpoint has been sunset.";
    }
  } else if (version && version->status != "active") {
    verdict.headers = headersFor(version->notice);
  }
  // A deprecated version past its own sunset date has ended as surely as
  // one marked sunset (API, Versioning 7).
  if (version && (version->status == "sunset" ||
                  (version->status == "deprecated" && sunsetReached(version->notice, nowMicros)))) {
    verdict.gone = true;
    verdict.goneMessage = "This API version has been sunset.";
  }
  return verdict;
}

rapport::Json VersionPolicy::versionsJson() const {
  rapport::Json list = rapport::Json::array();
  for (const auto& version : versions_) {
    list.push(rapport::Json::object({{"version", version.name},
                                     {"status", version.status},
                                     {"released_at", version.releasedAt},
                                     {"deprecated_at", nullable(version.notice.deprecatedAt)},
                                     {"sunset_at", nullable(version.notice.sunsetAt)},
                                     {"docs_url", version.docsUrl}}));
  }
  return list;
}

}  // namespace rapport::host
