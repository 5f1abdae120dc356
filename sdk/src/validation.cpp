// Validator rules and the shared checks behind them. Every message follows
// one vocabulary; the field is named by its key, underscores kept.
#include "rapport/validation.h"

#include <algorithm>
#include <cctype>
#include <unordered_set>

#include "rapport/time.h"

namespace rapport {
namespace {

constexpr std::size_t kMaxTags = 50;
constexpr std::size_t kMaxTagLength = 50;
constexpr std::size_t kMaxUrlLength = 2048;

std::string requiredMessage(const std::string& field) {
  return "The " + field + " field is required.";
}

bool isAsciiSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool isAsciiDigit(char c) {
  return c >= '0' && c <= '9';
}
bool isAsciiAlnum(char c) {
  return isAsciiDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// The checks every rule starts with. Returns the value to examine, or
// nullptr when the field is absent or null (recording "required" if needed).
template <typename T>
const Json* presence(Validator& v, const std::string& field, const Json* value, bool required,
                     Field<T>& out) {
  out.present = value != nullptr;
  if (value == nullptr || value->isNull()) {
    if (required) v.fail(field, requiredMessage(field));
    return nullptr;
  }
  return value;
}

// A string value, trimmed when asked; nullopt (with a message) when it is not
// a string, or when it is required and blank.
std::optional<std::string> readText(Validator& v, const std::string& field, const Json& value,
                                    bool required, bool trimIt = true) {
  if (!value.isString()) {
    v.fail(field, "The " + field + " must be a string.");
    return std::nullopt;
  }
  std::string text = trimIt ? trim(value.asString()) : value.asString();
  if (required && trim(text).empty()) {
    v.fail(field, requiredMessage(field));
    return std::nullopt;
  }
  return text;
}

// PostgreSQL text cannot hold a NUL character: every rule that keeps free
// text refuses it, so both engines answer the same 422 (never a driver error).
// True (with a message) when `text` holds one.
bool refuseNul(Validator& v, const std::string& field, const std::string& text) {
  if (text.find('\0') == std::string::npos) return false;
  v.fail(field, "The " + field + " must not contain null characters.");
  return true;
}

// One DNS label: 1 to 63 of [A-Za-z0-9-], not starting or ending with '-'.
bool isValidLabel(std::string_view label) {
  if (label.empty() || label.size() > 63) return false;
  if (label.front() == '-' || label.back() == '-') return false;
  return std::all_of(label.begin(), label.end(),
                     [](char c) { return isAsciiAlnum(c) || c == '-'; });
}

// Dot-separated DNS labels, each valid.
bool allLabelsValid(std::string_view name) {
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = name.find('.', start);
    if (!isValidLabel(name.substr(start, dot == std::string_view::npos ? dot : dot - start))) {
      return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// At least two labels ("example.com"); the last is not all digits.
bool isValidDomain(std::string_view domain) {
  if (domain.size() > 253 || domain.find('.') == std::string_view::npos) return false;
  if (!allLabelsValid(domain)) return false;
  const std::string_view last = domain.substr(domain.rfind('.') + 1);
  return !std::all_of(last.begin(), last.end(), isAsciiDigit);
}

// The dot-atom form of RFC 5322: no quoted strings, no comments.
bool isValidLocalPart(std::string_view local) {
  static constexpr std::string_view kSpecials = "!#$%&'*+/=?^_`{|}~.-";
  if (local.empty() || local.size() > 64) return false;
  if (local.front() == '.' || local.back() == '.') return false;
  if (local.find("..") != std::string_view::npos) return false;
  return std::all_of(local.begin(), local.end(), [](char c) {
    return isAsciiAlnum(c) || kSpecials.find(c) != std::string_view::npos;
  });
}

bool isValidPort(std::string_view port) {
  if (port.empty() || port.size() > 5) return false;
  if (!std::all_of(port.begin(), port.end(), isAsciiDigit)) return false;
  return std::stoi(std::string(port)) <= 65535;
}

// A bracketed IPv6 literal, checked loosely: hex digits, colons and dots.
bool isValidIpLiteral(std::string_view literal) {
  return !literal.empty() && std::all_of(literal.begin(), literal.end(), [](char c) {
    return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.';
  });
}

// [user-info@]host[:port], where host is a name ("localhost" and IPv4 pass as
// labels) or a bracketed IPv6 literal.
bool isValidUrlAuthority(std::string_view authority) {
  const std::size_t at = authority.rfind('@');
  if (at != std::string_view::npos) authority.remove_prefix(at + 1);
  std::string_view host = authority;
  std::optional<std::string_view> port;
  if (!authority.empty() && authority.front() == '[') {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos || !isValidIpLiteral(authority.substr(1, close - 1))) {
      return false;
    }
    const std::string_view rest = authority.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return false;
      port = rest.substr(1);
    }
  } else {
    const std::size_t colon = authority.find(':');
    if (colon != std::string_view::npos) {
      host = authority.substr(0, colon);
      port = authority.substr(colon + 1);
    }
    if (!host.empty() && host.back() == '.') host.remove_suffix(1);  // fully qualified form
    if (host.empty() || host.size() > 253 || !allLabelsValid(host)) return false;
  }
  return !port || isValidPort(*port);
}

bool isValidUrl(std::string_view url) {
  const std::string lower = toLower(url.substr(0, 8));
  std::size_t schemeEnd;
  if (lower.rfind("https://", 0) == 0) {
    schemeEnd = 8;
  } else if (lower.rfind("http://", 0) == 0) {
    schemeEnd = 7;
  } else {
    return false;
  }
  // No white space or control characters anywhere: they must be percent-encoded.
  if (std::any_of(url.begin(), url.end(),
                  [](char c) { return static_cast<unsigned char>(c) <= 0x20 || c == 0x7F; })) {
    return false;
  }
  const std::string_view rest = url.substr(schemeEnd);
  return isValidUrlAuthority(rest.substr(0, rest.find_first_of("/?#")));
}

}  // namespace

Validator::Validator(const Json& body) : body_(body) {}

const Json* Validator::lookup(const std::string& field) const {
  return body_.find(field);
}

bool Validator::present(const std::string& field) const {
  return lookup(field) != nullptr;
}

void Validator::fail(const std::string& field, std::string message) {
  errors_[field].push_back(std::move(message));
}

void Validator::check() const {
  if (!errors_.empty()) throw Error::validation(errors_);
}

Field<std::string> Validator::string(const std::string& field, StringRule rule) {
  Field<std::string> out;
  const Json* value = presence(*this, field, lookup(field), rule.required, out);
  if (!value) return out;
  auto text = readText(*this, field, *value, rule.required, rule.trim);
  if (!text || refuseNul(*this, field, *text)) return out;
  const std::size_t length = utf8Length(*text);
  if (length > rule.max) {
    fail(field,
         "The " + field + " may not be greater than " + std::to_string(rule.max) + " characters.");
  } else if (length < rule.min) {
    fail(field, "The " + field + " must be at least " + std::to_string(rule.min) + " characters.");
  } else {
    out.value = std::move(*text);
  }
  return out;
}

Field<std::string> Validator::email(const std::string& field, bool required) {
  Field<std::string> out;
  const Json* value = presence(*this, field, lookup(field), required, out);
  if (!value) return out;
  auto text = readText(*this, field, *value, required);
  if (!text || refuseNul(*this, field, *text)) return out;
  if (!isValidEmail(*text)) {
    fail(field, "The " + field + " must be a valid email address.");
  } else {
    out.value = toLower(*text);
  }
  return out;
}

Field<std::int64_t> Validator::integer(const std::string& field, IntRule rule) {
  Field<std::int64_t> out;
  const Json* value = presence(*this, field, lookup(field), rule.required, out);
  if (!value) return out;
  // Only Int: 5.0 and 1e2 are refused, as are numbers outside int64 (Double).
  if (!value->isInt()) {
    fail(field, "The " + field + " must be an integer.");
    return out;
  }
  const std::int64_t number = value->asInt();
  if (rule.min && number < *rule.min) {
    fail(field, "The " + field + " must be at least " + std::to_string(*rule.min) + ".");
  } else if (rule.max && number > *rule.max) {
    fail(field, "The " + field + " may not be greater than " + std::to_string(*rule.max) + ".");
  } else {
    out.value = number;
  }
  return out;
}

Field<std::int64_t> Validator::money(const std::string& field, bool required) {
  return integer(field, {.required = required, .min = 0, .max = std::nullopt});
}

Field<bool> Validator::boolean(const std::string& field, bool required) {
  Field<bool> out;
  const Json* value = presence(*this, field, lookup(field), required, out);
  if (!value) return out;
  if (!value->isBool()) {
    fail(field, "The " + field + " field must be true or false.");
  } else {
    out.value = value->asBool();
  }
  return out;
}

Field<std::string> Validator::date(const std::string& field, bool required) {
  Field<std::string> out;
  const Json* value = presence(*this, field, lookup(field), required, out);
  if (!value) return out;
  auto text = readText(*this, field, *value, required);
  if (!text) return out;
  if (!isValidDate(*text)) {
    fail(field, "The " + field + " is not a valid date.");
  } else {
    out.value = std::move(*text);
  }
  return out;
}

Field<std::int64_t> Validator::timestamp(const std::string& field, bool required) {
  Field<std::int64_t> out;
  const Json* value = presence(*this, field, lookup(field), required, out);
  if (!value) return out;
  auto text = readText(*this, field, *value, required);
  if (!text) return out;
  out.value = parseIsoTimestamp(*text);
  if (!out.value) fail(field, "The " + field + " is not a valid date-time.");
  return out;
}

Field<std::string> Validator::oneOf(const std::string& field,
                                    const std::vector<std::string>& allowed, bool required) {
  Field<std::string> out;
  const Json* value = presence(*this, field, lookup(field), required, out);
  if (!value) return out;
  auto text = readText(*this, field, *value, required);
  if (!text) return out;
  if (std::find(allowed.begin(), allowed.end(), *text) == allowed.end()) {
    fail(field, "The selected " + field + " is invalid.");
  } else {
    out.value = std::move(*text);
  }
  return out;
}

Field<std::string> Validator::id(const std::string& field, bool required) {
  Field<std::string> out;
  const Json* value = presence(*this, field, lookup(field), required, out);
  if (!value) return out;
  auto text = readText(*this, field, *value, required);
  if (!text || refuseNul(*this, field, *text)) return out;
  if (text->empty()) {
    fail(field, "The " + field + " must be a string.");
  } else {
    out.value = std::move(*text);
  }
  return out;
}

Field<std::vector<std::string>> Validator::tags(const std::string& field) {
  Field<std::vector<std::string>> out;
  const Json* value = presence(*this, field, lookup(field), false, out);
  if (!value) return out;
  if (!value->isArray()) {
    fail(field, "The " + field + " must be an array.");
    return out;
  }
  const auto& items = value->asArray();
  if (items.size() > kMaxTags) {
    fail(field, "The " + field + " may not have more than 50 items.");
    return out;
  }
  std::vector<std::string> tags;
  std::unordered_set<std::string> seen;  // lower-cased spellings already kept
  bool valid = true;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string key = field + "." + std::to_string(i);
    if (!items[i].isString()) {
      fail(key, "The " + key + " must be a string.");
      valid = false;
      continue;
    }
    std::string tag = trim(items[i].asString());
    if (refuseNul(*this, key, tag)) {
      valid = false;
      continue;
    }
    const std::size_t length = utf8Length(tag);
    if (length == 0 || length > kMaxTagLength) {
      fail(key, "The " + key + " must be between 1 and 50 characters.");
      valid = false;
      continue;
    }
    if (seen.insert(toLower(tag)).second) tags.push_back(std::move(tag));
  }
  if (valid) out.value = std::move(tags);
  return out;
}

Field<std::string> Validator::currency(const std::string& field, bool required) {
  Field<std::string> out = string(field, {.required = required, .max = 255});
  if (out.value && !isCurrencyCode(*out.value)) {
    fail(field, "The " + field + " must be a 3-letter upper-case code.");
    out.value.reset();
  }
  return out;
}

Field<std::string> Validator::url(const std::string& field, bool required) {
  Field<std::string> out;
  const Json* value = presence(*this, field, lookup(field), required, out);
  if (!value) return out;
  auto text = readText(*this, field, *value, required);
  if (!text || refuseNul(*this, field, *text)) return out;
  if (text->size() > kMaxUrlLength) {
    fail(field, "The " + field + " may not be greater than 2048 characters.");
  } else if (!isValidUrl(*text)) {
    fail(field, "The " + field + " must be a valid URL.");
  } else {
    out.value = std::move(*text);
  }
  return out;
}

bool isValidEmail(std::string_view email) {
  if (email.size() > 254) return false;
  const std::size_t at = email.find('@');
  if (at == std::string_view::npos || email.find('@', at + 1) != std::string_view::npos) {
    return false;
  }
  return isValidLocalPart(email.substr(0, at)) && isValidDomain(email.substr(at + 1));
}

bool isCurrencyCode(std::string_view code) {
  return code.size() == 3 &&
         std::all_of(code.begin(), code.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
}

bool isValidDate(std::string_view ymd) {
  if (ymd.size() != 10 || ymd[4] != '-' || ymd[7] != '-') return false;
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!isAsciiDigit(ymd[i])) return false;
  }
  const auto number = [&](std::size_t from, std::size_t count) {
    int value = 0;
    for (std::size_t i = from; i < from + count; ++i) value = value * 10 + (ymd[i] - '0');
    return value;
  };
  const int year = number(0, 4), month = number(5, 2), day = number(8, 2);
  if (month < 1 || month > 12 || day < 1) return false;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return day <= kDays[month - 1] + (month == 2 && leap ? 1 : 0);
}

// Code points: every byte that is not a continuation byte starts one.
std::size_t utf8Length(std::string_view text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

std::string toLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string trim(std::string_view text) {
  std::size_t begin = 0, end = text.size();
  while (begin < end && isAsciiSpace(text[begin])) ++begin;
  while (end > begin && isAsciiSpace(text[end - 1])) --end;
  return std::string(text.substr(begin, end - begin));
}

}  // namespace rapport
