// Fuzzes the split of a request target (splitTarget), percent-coding
// (percentDecode, percentEncode), the query-string split (parseQuery) and
// path decoding (Router::match, which splits the path into segments and
// percent-decodes the parameters).
//
// Properties, beyond "no crash, no sanitizer report":
// - an origin-form target without '#' is its path, then '?' and its query
//   when it had one; the path never holds '?' or '#', and starts with '/'
//   unless the target is not a path at all;
// - decoding an encoding gives the input back, with or without '+' as space;
// - an encoding is only unreserved bytes and %XX, three bytes per escape, and
//   is its own canonical form: encode(decode(e)) == e;
// - decoding never grows the text, and leaves text without '%' (and '+')
//   alone;
// - the query map has no empty name, at most one entry per '&'-separated
//   pair, and written back encoded it parses to the same map;
// - a matched path's parameters are the decoded segments, and the same
//   values, encoded into the pattern again, match with the same parameters.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "FuzzSupport.h"
#include "http/Router.h"
#include "http/UrlCoding.h"

namespace {

using rapport::host::percentDecode;
using rapport::host::percentEncode;

bool isCanonicalEncoding(std::string_view text) {
  const auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'); };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~') {
      continue;
    }
    if (c != '%' || i + 2 >= text.size() || !hex(text[i + 1]) || !hex(text[i + 2])) {
      return false;
    }
    i += 2;
  }
  return true;
}

void checkCoding(std::string_view text) {
  const std::string encoded = percentEncode(text);
  FUZZ_CHECK(isCanonicalEncoding(encoded));
  FUZZ_CHECK(percentDecode(encoded, false) == text);
  FUZZ_CHECK(percentDecode(encoded, true) == text);
  FUZZ_CHECK(percentEncode(percentDecode(encoded, false)) == encoded);

  const std::string decoded = percentDecode(text, false);
  const std::string formDecoded = percentDecode(text, true);
  FUZZ_CHECK(decoded.size() <= text.size() && formDecoded.size() == decoded.size());
  if (text.find('%') == std::string_view::npos) {
    FUZZ_CHECK(decoded == text);
    if (text.find('+') == std::string_view::npos) FUZZ_CHECK(formDecoded == text);
  }
}

void checkQuery(std::string_view query) {
  const auto params = rapport::host::parseQuery(query);
  std::size_t pairs = 1;
  for (const char c : query) pairs += c == '&' ? 1 : 0;
  FUZZ_CHECK(params.size() <= pairs);
  std::string rebuilt;
  for (const auto& [name, value] : params) {
    FUZZ_CHECK(!name.empty());
    if (!rebuilt.empty()) rebuilt += '&';
    rebuilt += percentEncode(name) + "=" + percentEncode(value);
  }
  FUZZ_CHECK(rapport::host::parseQuery(rebuilt) == params);
}

// Patterns with parameters at several depths, literals beside them.
const rapport::host::Router& router() {
  static const rapport::host::Router* instance = [] {
    auto* r = new rapport::host::Router();
    const auto handler = [](const rapport::Request&) { return rapport::Response(); };
    for (const char* pattern : {"/v1/crm/contacts/{id}", "/v1/crm/contacts/search", "/v1/{a}/x/{b}",
                                "/{p}", "/{p}/{q}/{r}/{s}"}) {
      r->add("GET", pattern, handler, rapport::RouteOptions{}, "fuzz");
    }
    return r;
  }();
  return *instance;
}

// The pattern with each {name} replaced by the encoded parameter.
std::string fillPattern(const std::string& pattern,
                        const std::map<std::string, std::string>& params) {
  std::string path;
  std::size_t i = 0;
  while (i < pattern.size()) {
    const std::size_t open = pattern.find('{', i);
    if (open == std::string::npos) {
      path += pattern.substr(i);
      break;
    }
    const std::size_t close = pattern.find('}', open);
    path += pattern.substr(i, open - i);
    path += percentEncode(params.at(pattern.substr(open + 1, close - open - 1)));
    i = close + 1;
  }
  return path;
}

void checkPath(std::string_view path) {
  const auto match = router().match("GET", path);
  if (match.kind != rapport::host::RouteMatch::Kind::Found) return;
  FUZZ_CHECK(!path.empty() && path.front() == '/' && match.route != nullptr);
  for (const auto& [name, value] : match.params) {
    FUZZ_CHECK(!name.empty());
    FUZZ_CHECK(value.size() <= path.size());
  }
  const std::string again = fillPattern(match.route->pattern, match.params);
  const auto rematch = router().match("GET", again);
  // An encoded value may now look like a literal ("search" stays "search"),
  // so the route can change only towards a literal one; the values cannot.
  FUZZ_CHECK(rematch.kind == rapport::host::RouteMatch::Kind::Found);
  if (rematch.route == match.route) FUZZ_CHECK(rematch.params == match.params);
}

void checkTarget(std::string_view target) {
  const rapport::host::TargetParts parts = rapport::host::splitTarget(target);
  FUZZ_CHECK(parts.path.find('?') == std::string::npos);
  FUZZ_CHECK(parts.path.find('#') == std::string::npos);
  FUZZ_CHECK(parts.query.find('#') == std::string::npos);
  const bool origin = !target.empty() && target.front() == '/';
  if (origin) FUZZ_CHECK(!parts.path.empty() && parts.path.front() == '/');
  if (origin && target.find('#') == std::string_view::npos) {
    const bool hasQuery = target.find('?') != std::string_view::npos;
    FUZZ_CHECK(parts.path + (hasQuery ? "?" + parts.query : "") == target);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = rapport::fuzz::asText(data, size);
  checkTarget(text);
  checkCoding(text);
  checkQuery(text);
  checkPath(text);
  return 0;
}
