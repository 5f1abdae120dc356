// rapport::Json: the one JSON value type of Rapport, shared by host and modules.
//
// Why not Poco::JSON: Poco 1.11 corrupts negative integers below -2^53 while
// parsing, and its Var-based objects are slow and unordered. This type keeps
// integers exact (int64), keeps object keys in insertion order (responses read
// the way the code writes them), and has exactly one writer (dump).
//
// Threading: a Json value is a plain value; share it read-only or copy it.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "rapport/export.h"

namespace rapport {

// Thrown by Json::parse; `offset` is the byte where the text stopped making sense.
class RAPPORT_VISIBLE JsonParseError : public std::runtime_error {
 public:
  JsonParseError(const std::string& what, std::size_t offset)
      : std::runtime_error(what), offset_(offset) {}
  std::size_t offset() const { return offset_; }

 private:
  std::size_t offset_;
};

class RAPPORT_SDK_API Json {
 public:
  enum class Type { Null, Bool, Int, Double, String, Array, Object };
  using Array = std::vector<Json>;
  using Member = std::pair<std::string, Json>;
  using Object = std::vector<Member>;  // insertion-ordered; keys unique (set() replaces)

  Json() = default;  // null
  Json(std::nullptr_t) {}
  Json(bool v) : value_(v) {}
  Json(int v) : value_(static_cast<std::int64_t>(v)) {}
  Json(long v) : value_(static_cast<std::int64_t>(v)) {}
  Json(long long v) : value_(static_cast<std::int64_t>(v)) {}
  Json(unsigned v) : value_(static_cast<std::int64_t>(v)) {}
  Json(double v) : value_(v) {}
  Json(const char* v) : value_(std::string(v)) {}
  Json(std::string v) : value_(std::move(v)) {}
  Json(std::string_view v) : value_(std::string(v)) {}
  Json(Array v) : value_(std::move(v)) {}
  Json(Object v) : value_(std::move(v)) {}

  static Json object() { return Json(Object{}); }
  static Json array() { return Json(Array{}); }
  // Build an object in place: Json::object({{"id", id}, {"name", name}}).
  static Json object(std::initializer_list<Member> members);

  // Strict RFC 8259 parser. Integers that fit int64 become Int; other numbers
  // become Double (so callers can refuse them). Throws JsonParseError.
  // Nesting deeper than 64 levels is refused.
  static Json parse(std::string_view text);

  // Compact UTF-8 text; non-finite doubles are written as null.
  std::string dump() const;
  void dumpTo(std::string& out) const;

  Type type() const { return static_cast<Type>(value_.index()); }
  bool isNull() const { return type() == Type::Null; }
  bool isBool() const { return type() == Type::Bool; }
  bool isInt() const { return type() == Type::Int; }
  bool isNumber() const { return isInt() || type() == Type::Double; }
  bool isString() const { return type() == Type::String; }
  bool isArray() const { return type() == Type::Array; }
  bool isObject() const { return type() == Type::Object; }

  // Accessors throw std::logic_error on a type mismatch (a programming error,
  // rendered as 500): validate first with rapport::Validator.
  bool asBool() const;
  std::int64_t asInt() const;
  double asDouble() const;  // Int or Double
  const std::string& asString() const;
  const Array& asArray() const;
  Array& asArray();
  const Object& asObject() const;
  Object& asObject();

  // Object lookup: nullptr when this is not an object or the key is absent.
  const Json* find(std::string_view key) const;
  Json* find(std::string_view key);
  bool contains(std::string_view key) const { return find(key) != nullptr; }
  // Object lookup that returns a shared null value when absent.
  const Json& operator[](std::string_view key) const;
  // Object: replace the value of `key` or append it. Turns null into an
  // object. Returns *this, so calls chain: Json::object().set("a", 1).set("b", 2).
  Json& set(std::string key, Json value);
  // Object: remove `key` if present.
  void erase(std::string_view key);
  // Array: append. Turns null into an array. Returns *this.
  Json& push(Json value);
  // Number of array elements or object members; 0 otherwise.
  std::size_t size() const;

  friend bool operator==(const Json& a, const Json& b) { return a.value_ == b.value_; }

 private:
  std::variant<std::monostate, bool, std::int64_t, double, std::string, Array, Object> value_;
};

}  // namespace rapport
