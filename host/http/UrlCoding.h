// Percent-coding of path segments, query strings and form bodies (RFC 3986,
// plus the form convention of '+' for a space in queries).
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace rapport::host {

// Decodes %XX escapes; with `plusAsSpace`, '+' becomes ' '. A malformed
// escape ("%G1", a trailing "%") is kept as written rather than refused: the
// value then simply fails whatever validation the handler applies.
std::string percentDecode(std::string_view text, bool plusAsSpace);

// Encodes every byte except the unreserved ALPHA / DIGIT / - . _ ~ (RFC 3986
// §2.3), so the value is one item wherever it goes: a path segment, a query
// or form value, an otpauth label.
std::string percentEncode(std::string_view text);

// "a=1&b=x+y&a=2" -> {a: "1", b: "x y"}: names and values decoded, the first
// value of a repeated name wins, a name without '=' has an empty value, and
// empty names are skipped.
std::map<std::string, std::string> parseQuery(std::string_view query);

// A request target split into its path and its query, both still encoded:
// "/v1/x?a=1" -> {"/v1/x", "a=1"}. A fragment is dropped. The absolute form
// ("http://host/v1/x?a=1", RFC 9112 §3.2.2) keeps its path ("/" when it has
// none).
struct TargetParts {
  std::string path;
  std::string query;
};
TargetParts splitTarget(std::string_view target);

}  // namespace rapport::host
