// Validation of JSON request bodies, producing 422 `errors` in the API's
// shape. Each rule reads one field, records a message when the field breaks
// it, and returns what it read; check() throws one Error::validation with
// every message at once.
//
//   Validator v(req.bodyObject());
//   auto name  = v.string("name", {.required = true, .max = 255});
//   auto email = v.email("email");
//   auto tags  = v.tags("tags");
//   v.check();
//
// A Field tells apart "absent" (PATCH leaves it unchanged), "null" (clear it)
// and a value. Messages follow one vocabulary ("The name field is required.").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rapport/error.h"
#include "rapport/export.h"
#include "rapport/json.h"

namespace rapport {

template <typename T>
struct Field {
  bool present = false;    // the key was in the body (possibly null)
  std::optional<T> value;  // set when present, not null and valid

  bool isNull() const { return present && !value; }
  // Value or fallback.
  T valueOr(T fallback) const { return value ? *value : fallback; }

  // PATCH semantics in one call: when the field was sent, copy it into
  // `target` (a sent null clears it) and return true; when absent, leave
  // `target` alone and return false. `changed |= in.phone.applyTo(row.phone);`
  bool applyTo(std::optional<T>& target) const {
    if (!present) return false;
    target = value;
    return true;
  }
  // The same for a target that has no null: a sent null stores `cleared`.
  bool applyTo(T& target, T cleared = T{}) const {
    if (!present) return false;
    target = value ? *value : std::move(cleared);
    return true;
  }
};

struct StringRule {
  bool required = false;  // absent, null or empty (after trim) fails
  std::size_t min = 0;    // in characters (UTF-8 code points)
  std::size_t max = 255;
  bool trim = true;  // surrounding white space is removed first
};

struct IntRule {
  bool required = false;
  std::optional<std::int64_t> min = std::nullopt;
  std::optional<std::int64_t> max = std::nullopt;
};

class RAPPORT_SDK_API Validator {
 public:
  // `body` must outlive the validator.
  explicit Validator(const Json& body);

  Field<std::string> string(const std::string& field, StringRule rule = {});
  // A syntactically valid e-mail address (at most 254 characters), lower-cased.
  Field<std::string> email(const std::string& field, bool required = false);
  // An integer (JSON numbers with a fraction, or outside int64, fail).
  Field<std::int64_t> integer(const std::string& field, IntRule rule = {});
  // Non-negative integer cents.
  Field<std::int64_t> money(const std::string& field, bool required = false);
  Field<bool> boolean(const std::string& field, bool required = false);
  // A real calendar date "YYYY-MM-DD".
  Field<std::string> date(const std::string& field, bool required = false);
  // An ISO-8601 timestamp; returns microseconds since the epoch (UTC).
  Field<std::int64_t> timestamp(const std::string& field, bool required = false);
  // One of `allowed`.
  Field<std::string> oneOf(const std::string& field, const std::vector<std::string>& allowed,
                           bool required = false);
  // A string id; the prefix is not checked here (a wrong prefix is a 404 later).
  Field<std::string> id(const std::string& field, bool required = false);
  // Tags (decisions §1): array of at most 50 strings of 1 to 50 characters,
  // trimmed, duplicates dropped (case-insensitively), order kept.
  Field<std::vector<std::string>> tags(const std::string& field);
  // An http or https URL.
  Field<std::string> url(const std::string& field, bool required = false);
  // A currency as an ISO 4217 code: three upper-case letters ("EUR"); other
  // text fails with "The <field> must be a 3-letter upper-case code.".
  Field<std::string> currency(const std::string& field, bool required = false);

  bool present(const std::string& field) const;
  // Records a message of the caller's own (cross-field rules).
  void fail(const std::string& field, std::string message);
  bool ok() const { return errors_.empty(); }
  const FieldErrors& errors() const { return errors_; }
  // Throws Error::validation when any rule failed.
  void check() const;

 private:
  const Json* lookup(const std::string& field) const;
  const Json& body_;
  FieldErrors errors_;
};

// Shared checks, usable outside a Validator.
RAPPORT_SDK_API bool isValidEmail(std::string_view email);
RAPPORT_SDK_API bool isValidDate(std::string_view ymd);
// Three upper-case ASCII letters (the shape of an ISO 4217 code).
RAPPORT_SDK_API bool isCurrencyCode(std::string_view code);
RAPPORT_SDK_API std::size_t utf8Length(std::string_view text);
// True when `text` is well-formed UTF-8 (no overlong forms, no surrogates)
// without NUL characters: what every text value stored or bound must be.
RAPPORT_SDK_API bool isValidUtf8(std::string_view text);
RAPPORT_SDK_API std::string toLower(std::string_view text);  // ASCII lower-case
RAPPORT_SDK_API std::string trim(std::string_view text);

}  // namespace rapport
