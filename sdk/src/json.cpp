// rapport::Json: accessors, a strict RFC 8259 parser and the compact writer.
#include "rapport/json.h"
#include "rapport/validation.h"

#include <locale.h>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <unordered_map>

namespace rapport {
namespace {

constexpr int kMaxDepth = 64;
// Objects longer than this get a hash index while parsing, so duplicate-key
// detection stays linear for hostile bodies with many keys.
constexpr std::size_t kIndexThreshold = 16;
constexpr std::string_view kReplacementChar = "\xEF\xBF\xBD";

// Length of the well-formed UTF-8 sequence at text[pos], or 0 when the bytes
// there are not one (stray continuation, overlong form, surrogate, > U+10FFFF
// or truncated), following the table of Unicode 15 section 3.9.
std::size_t utf8SequenceLength(std::string_view text, std::size_t pos) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(pos);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // overlong
    if (lead == 0xED) high = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // overlong
    if (lead == 0xF4) high = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (pos + length > text.size()) return 0;
  if (byte(pos + 1) < low || byte(pos + 1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if (byte(pos + i) < 0x80 || byte(pos + i) > 0xBF) return 0;
  }
  return length;
}

void appendUtf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// strtod in the "C" locale: the process locale must not change how a decimal
// point reads. Only used for the rare numbers std::from_chars calls out of range.
double strtodC(const std::string& text) {
  static const locale_t cLocale = newlocale(LC_ALL_MASK, "C", locale_t{});
  return strtod_l(text.c_str(), nullptr, cLocale);
}

// Collects object members; a repeated key replaces the earlier value in place
// (the last one wins, as in most parsers), keeping keys unique.
class ObjectBuilder {
 public:
  void add(std::string key, Json value) {
    if (Json* existing = find(key)) {
      *existing = std::move(value);
      return;
    }
    members_.emplace_back(std::move(key), std::move(value));
    if (!index_.empty()) {
      index_.emplace(members_.back().first, members_.size() - 1);
    } else if (members_.size() == kIndexThreshold) {
      for (std::size_t i = 0; i < members_.size(); ++i) index_.emplace(members_[i].first, i);
    }
  }
  Json::Object take() { return std::move(members_); }

 private:
  Json* find(const std::string& key) {
    if (!index_.empty()) {
      auto it = index_.find(key);
      return it == index_.end() ? nullptr : &members_[it->second].second;
    }
    for (auto& member : members_) {
      if (member.first == key) return &member.second;
    }
    return nullptr;
  }

  Json::Object members_;
  std::unordered_map<std::string, std::size_t> index_;
};

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Json parseDocument() {
    skipWhitespace();
    Json value = parseValue(0);
    skipWhitespace();
    if (!atEnd()) fail("Unexpected character");
    return value;
  }

 private:
  [[noreturn]] void fail(const char* what) const {
    throw JsonParseError(std::string(what) + " at offset " + std::to_string(pos_), pos_);
  }
  [[noreturn]] void unexpected() const {
    fail(atEnd() ? "Unexpected end of input" : "Unexpected character");
  }
  bool atEnd() const { return pos_ >= text_.size(); }
  unsigned char peek() const { return static_cast<unsigned char>(text_[pos_]); }
  bool isDigitAt(std::size_t at) const {
    return at < text_.size() && text_[at] >= '0' && text_[at] <= '9';
  }
  void expect(char c) {
    if (atEnd() || text_[pos_] != c) unexpected();
    ++pos_;
  }

  void skipWhitespace() {
    while (!atEnd()) {
      const char c = text_[pos_];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
      ++pos_;
    }
  }

  Json parseValue(int depth) {
    if (atEnd()) unexpected();
    switch (text_[pos_]) {
      case '{':
        return parseObject(depth + 1);
      case '[':
        return parseArray(depth + 1);
      case '"':
        return Json(parseString());
      case 't':
        return parseLiteral("true", Json(true));
      case 'f':
        return parseLiteral("false", Json(false));
      case 'n':
        return parseLiteral("null", Json());
      default:
        return parseNumber();
    }
  }

  Json parseLiteral(std::string_view word, Json value) {
    for (char c : word) expect(c);
    return value;
  }

  void enter(int depth) const {
    if (depth > kMaxDepth) fail("Nesting deeper than 64 levels");
  }

  Json parseObject(int depth) {
    enter(depth);
    ++pos_;  // '{'
    ObjectBuilder members;
    skipWhitespace();
    if (!atEnd() && text_[pos_] == '}') {
      ++pos_;
      return Json(members.take());
    }
    while (true) {
      skipWhitespace();
      if (atEnd() || text_[pos_] != '"') unexpected();  // also refuses a trailing comma
      std::string key = parseString();
      skipWhitespace();
      expect(':');
      skipWhitespace();
      members.add(std::move(key), parseValue(depth));
      skipWhitespace();
      if (atEnd()) unexpected();
      const char c = text_[pos_++];
      if (c == '}') return Json(members.take());
      if (c != ',') {
        --pos_;
        unexpected();
      }
    }
  }

  Json parseArray(int depth) {
    enter(depth);
    ++pos_;  // '['
    Json::Array items;
    skipWhitespace();
    if (!atEnd() && text_[pos_] == ']') {
      ++pos_;
      return Json(std::move(items));
    }
    while (true) {
      skipWhitespace();
      if (!atEnd() && text_[pos_] == ']') unexpected();  // trailing comma
      items.push_back(parseValue(depth));
      skipWhitespace();
      if (atEnd()) unexpected();
      const char c = text_[pos_++];
      if (c == ']') return Json(std::move(items));
      if (c != ',') {
        --pos_;
        unexpected();
      }
    }
  }

  std::string parseString() {
    ++pos_;  // opening quote
    std::string out;
    std::size_t runStart = pos_;  // plain bytes are copied in runs, not one by one
    while (!atEnd()) {
      const unsigned char c = peek();
      if (c == '"' || c == '\\') {
        out.append(text_, runStart, pos_ - runStart);
        ++pos_;
        if (c == '"') return out;
        parseEscape(out);
        runStart = pos_;
      } else if (c < 0x20) {
        fail("Control character in string");
      } else if (c < 0x80) {
        ++pos_;
      } else {
        const std::size_t length = utf8SequenceLength(text_, pos_);
        if (length == 0) fail("Invalid UTF-8");
        pos_ += length;
      }
    }
    fail("Unexpected end of input");
  }

  // After the backslash.
  void parseEscape(std::string& out) {
    if (atEnd()) unexpected();
    const char c = text_[pos_++];
    switch (c) {
      case '"':
      case '\\':
      case '/':
        out.push_back(c);
        return;
      case 'b':
        out.push_back('\b');
        return;
      case 'f':
        out.push_back('\f');
        return;
      case 'n':
        out.push_back('\n');
        return;
      case 'r':
        out.push_back('\r');
        return;
      case 't':
        out.push_back('\t');
        return;
      case 'u':
        appendUtf8(out, parseUnicodeEscape());
        return;
      default:
        --pos_;
        fail("Invalid escape");
    }
  }

  // After "\u": one code point, joining a surrogate pair. A lone surrogate
  // has no UTF-8 form, so it is refused.
  std::uint32_t parseUnicodeEscape() {
    const std::size_t start = pos_;
    const std::uint32_t unit = parseHex4();
    if (unit >= 0xDC00 && unit <= 0xDFFF) {
      pos_ = start;
      fail("Unpaired surrogate");
    }
    if (unit < 0xD800 || unit > 0xDBFF) return unit;
    if (text_.substr(pos_, 2) != "\\u") fail("Unpaired surrogate");
    pos_ += 2;
    const std::uint32_t low = parseHex4();
    if (low < 0xDC00 || low > 0xDFFF) {
      pos_ -= 4;
      fail("Unpaired surrogate");
    }
    return 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
  }

  std::uint32_t parseHex4() {
    std::uint32_t value = 0;
    for (int i = 0; i < 4; ++i) {
      if (atEnd()) unexpected();
      const char c = text_[pos_];
      std::uint32_t digit;
      if (c >= '0' && c <= '9') {
        digit = static_cast<std::uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        digit = static_cast<std::uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        digit = static_cast<std::uint32_t>(c - 'A' + 10);
      } else {
        fail("Invalid escape");
      }
      value = value * 16 + digit;
      ++pos_;
    }
    return value;
  }

  void skipDigits() {
    while (isDigitAt(pos_)) ++pos_;
  }

  // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?  A leading zero followed
  // by a digit ends the number at the zero; the caller then refuses the digit.
  Json parseNumber() {
    const std::size_t start = pos_;
    if (text_[pos_] == '-') ++pos_;
    if (!isDigitAt(pos_)) unexpected();
    if (text_[pos_] == '0') {
      ++pos_;
    } else {
      skipDigits();
    }
    bool integral = true;
    if (!atEnd() && text_[pos_] == '.') {
      ++pos_;
      if (!isDigitAt(pos_)) unexpected();
      skipDigits();
      integral = false;
    }
    if (!atEnd() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (!atEnd() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (!isDigitAt(pos_)) unexpected();
      skipDigits();
      integral = false;
    }
    return numberValue(start, integral);
  }

  Json numberValue(std::size_t start, bool integral) {
    const char* first = text_.data() + start;
    const char* last = text_.data() + pos_;
    if (integral) {
      std::int64_t value = 0;
      if (std::from_chars(first, last, value).ec == std::errc()) return Json(value);
      // Out of int64 range: read it as a double below.
    }
    double value = 0;
    const auto result = std::from_chars(first, last, value);
    if (result.ec == std::errc()) return Json(value);
    // from_chars refuses both overflow and underflow; tell them apart.
    value = strtodC(std::string(first, last));
    if (std::isinf(value)) {
      pos_ = start;
      fail("Number out of range");
    }
    return Json(value);
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

void writeEscaped(std::string& out, unsigned char c) {
  static constexpr char kHex[] = "0123456789abcdef";
  switch (c) {
    case '"':
      out += "\\\"";
      return;
    case '\\':
      out += "\\\\";
      return;
    case '\b':
      out += "\\b";
      return;
    case '\f':
      out += "\\f";
      return;
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    case '\t':
      out += "\\t";
      return;
    default:
      out += "\\u00";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
  }
}

// Valid UTF-8 is copied as is; bytes that are not (from a database, say)
// become U+FFFD so the output is always valid JSON.
void writeString(std::string& out, std::string_view text) {
  out.push_back('"');
  std::size_t runStart = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      const std::size_t length = utf8SequenceLength(text, i);
      if (length > 0) {
        i += length;
        continue;
      }
    }
    out.append(text, runStart, i - runStart);
    if (c >= 0x80) {
      out += kReplacementChar;
    } else {
      writeEscaped(out, c);
    }
    runStart = ++i;
  }
  out.append(text, runStart, i - runStart);
  out.push_back('"');
}

void writeInt(std::string& out, std::int64_t value) {
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, result.ptr);
}

// Shortest text that reads back as the same double. A ".0" is added to
// integral values so they read back as Double, not Int.
void writeDouble(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  const std::string_view text(buffer, static_cast<std::size_t>(result.ptr - buffer));
  out += text;
  if (text.find_first_of(".e") == std::string_view::npos) out += ".0";
}

[[noreturn]] void typeMismatch(const char* what) {
  throw std::logic_error(std::string("Json: not ") + what);
}

}  // namespace

Json Json::object(std::initializer_list<Member> members) {
  Json result = object();
  for (const auto& member : members) result.set(member.first, member.second);
  return result;
}

Json Json::parse(std::string_view text) {
  return Parser(text).parseDocument();
}

std::string Json::dump() const {
  std::string out;
  dumpTo(out);
  return out;
}

void Json::dumpTo(std::string& out) const {
  switch (type()) {
    case Type::Null:
      out += "null";
      return;
    case Type::Bool:
      out += std::get<bool>(value_) ? "true" : "false";
      return;
    case Type::Int:
      writeInt(out, std::get<std::int64_t>(value_));
      return;
    case Type::Double:
      writeDouble(out, std::get<double>(value_));
      return;
    case Type::String:
      writeString(out, std::get<std::string>(value_));
      return;
    case Type::Array: {
      out.push_back('[');
      bool first = true;
      for (const auto& item : std::get<Array>(value_)) {
        if (!first) out.push_back(',');
        first = false;
        item.dumpTo(out);
      }
      out.push_back(']');
      return;
    }
    case Type::Object: {
      out.push_back('{');
      bool first = true;
      for (const auto& [key, item] : std::get<Object>(value_)) {
        if (!first) out.push_back(',');
        first = false;
        writeString(out, key);
        out.push_back(':');
        item.dumpTo(out);
      }
      out.push_back('}');
      return;
    }
  }
}

bool Json::asBool() const {
  if (!isBool()) typeMismatch("a bool");
  return std::get<bool>(value_);
}

std::int64_t Json::asInt() const {
  if (!isInt()) typeMismatch("an integer");
  return std::get<std::int64_t>(value_);
}

double Json::asDouble() const {
  if (isInt()) return static_cast<double>(std::get<std::int64_t>(value_));
  if (type() != Type::Double) typeMismatch("a number");
  return std::get<double>(value_);
}

const std::string& Json::asString() const {
  if (!isString()) typeMismatch("a string");
  return std::get<std::string>(value_);
}

const Json::Array& Json::asArray() const {
  if (!isArray()) typeMismatch("an array");
  return std::get<Array>(value_);
}

Json::Array& Json::asArray() {
  if (!isArray()) typeMismatch("an array");
  return std::get<Array>(value_);
}

const Json::Object& Json::asObject() const {
  if (!isObject()) typeMismatch("an object");
  return std::get<Object>(value_);
}

Json::Object& Json::asObject() {
  if (!isObject()) typeMismatch("an object");
  return std::get<Object>(value_);
}

const Json* Json::find(std::string_view key) const {
  if (!isObject()) return nullptr;
  for (const auto& member : std::get<Object>(value_)) {
    if (member.first == key) return &member.second;
  }
  return nullptr;
}

Json* Json::find(std::string_view key) {
  return const_cast<Json*>(static_cast<const Json&>(*this).find(key));
}

const Json& Json::operator[](std::string_view key) const {
  static const Json null;
  const Json* found = find(key);
  return found ? *found : null;
}

// Returns *this so calls chain: Json::object().set("a", 1).set("b", 2).
Json& Json::set(std::string key, Json value) {
  if (isNull()) value_ = Object{};
  if (Json* existing = find(key)) {
    *existing = std::move(value);
  } else {
    asObject().emplace_back(std::move(key), std::move(value));
  }
  return *this;
}

void Json::erase(std::string_view key) {
  if (!isObject()) return;
  auto& members = std::get<Object>(value_);
  for (auto it = members.begin(); it != members.end(); ++it) {
    if (it->first == key) {
      members.erase(it);
      return;
    }
  }
}

// Returns *this so calls chain, like set().
Json& Json::push(Json value) {
  if (isNull()) value_ = Array{};
  asArray().push_back(std::move(value));
  return *this;
}

std::size_t Json::size() const {
  if (isArray()) return std::get<Array>(value_).size();
  if (isObject()) return std::get<Object>(value_).size();
  return 0;
}

// Declared in validation.h; here beside the one UTF-8 decoder of the SDK.
bool isValidUtf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '\0') return false;
    const std::size_t length = utf8SequenceLength(text, i);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

}  // namespace rapport
