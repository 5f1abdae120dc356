// API versions and deprecations as the operator configures them
// (decisions §10), and what they mean for one request path.
//
// Configuration keys:
//   versions                      comma list, default "v1"
//   versions.<v>.status           active | deprecated | sunset (default active)
//   versions.<v>.released_at      default "2026-01-01"
//   versions.<v>.deprecated_at    default unset
//   versions.<v>.sunset_at        default unset
//   versions.<v>.docs_url         default "https://docs.rapport.dev/<v>"
//   versions.<v>.link             optional migration docs (Link rel="deprecation")
//   versions.<v>.successor        optional replacement (Link rel="successor-version")
//   deprecations                  comma list of rule names, default empty
//   deprecations.<name>.prefix    path prefix, "/v1/crm/legacy" (required)
//   deprecations.<name>.deprecated_at, .sunset_at, .link, .successor
// Dates are ISO-8601 dates or date-times, sent back in headers as written.
//
// Threading: immutable after construction; evaluate() is safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rapport/config.h"
#include "rapport/json.h"

namespace rapport::host {

// What a deprecation says, whether it comes from a version or a path rule.
struct DeprecationNotice {
  std::optional<std::string> deprecatedAt;   // as configured
  std::optional<std::string> sunsetAt;       // as configured
  std::optional<std::int64_t> sunsetMicros;  // sunsetAt as an instant
  std::optional<std::string> link;           // rel="deprecation"
  std::optional<std::string> successor;      // rel="successor-version"
};

struct ApiVersion {
  std::string name;    // "v1"
  std::string status;  // "active", "deprecated" or "sunset"
  std::string releasedAt;
  std::string docsUrl;
  DeprecationNotice notice;
};

struct DeprecationRule {
  std::string name;
  std::string prefix;  // without a trailing slash
  DeprecationNotice notice;
};

// The policy's answer for one path.
struct VersionVerdict {
  bool gone = false;  // answer 410 with goneMessage
  std::string goneMessage;
  // Deprecation, Sunset and Link, for every response to the path (410 included).
  std::vector<std::pair<std::string, std::string>> headers;
};

class VersionPolicy {
 public:
  // Throws std::invalid_argument naming the key of a bad value (unknown
  // status, unreadable date, a rule without an absolute prefix).
  explicit VersionPolicy(const rapport::Config& config);

  // `nowMicros`: the current UTC time, compared with sunset instants.
  VersionVerdict evaluate(std::string_view path, std::int64_t nowMicros) const;

  // The data of GET /v1/versions: [{version, status, released_at,
  // deprecated_at, sunset_at, docs_url}], nulls where unset.
  rapport::Json versionsJson() const;

  const std::vector<ApiVersion>& versions() const { return versions_; }
  const std::vector<DeprecationRule>& rules() const { return rules_; }

 private:
  const ApiVersion* versionOf(std::string_view path) const;
  const DeprecationRule* ruleFor(std::string_view path) const;

  std::vector<ApiVersion> versions_;
  std::vector<DeprecationRule> rules_;
};

}  // namespace rapport::host
