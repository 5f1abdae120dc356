// Value conversions and Row access: how column values read as C++ types.
// Both engines hand back loosely typed values (SQLite INTEGER for booleans,
// PostgreSQL text forms), so conversions accept every spelling a driver uses
// and throw std::logic_error for anything else (a programming error, a 500).
#include "rapport/db.h"

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace rapport {
namespace {

[[noreturn]] void impossible(const std::string& what) {
  throw std::logic_error("Value: " + what);
}

std::string formatDouble(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

// The whole text must be the number: "12abc" and " 12" are refused.
template <typename T>
bool parseWhole(const std::string& text, T& value) {
  const char* end = text.data() + text.size();
  const auto result = std::from_chars(text.data(), end, value);
  return !text.empty() && result.ec == std::errc() && result.ptr == end;
}

// 2^63 as a double: the first value above the int64 range.
constexpr double kTwoPow63 = 9223372036854775808.0;

}  // namespace

std::string Value::asString() const {
  switch (v_.index()) {
    case 1:
      return std::get<bool>(v_) ? "true" : "false";
    case 2:
      return std::to_string(std::get<std::int64_t>(v_));
    case 3:
      return formatDouble(std::get<double>(v_));
    case 4:
      return std::get<std::string>(v_);
    default:
      impossible("NULL is not a string");
  }
}

std::int64_t Value::asInt() const {
  switch (v_.index()) {
    case 1:
      return std::get<bool>(v_) ? 1 : 0;
    case 2:
      return std::get<std::int64_t>(v_);
    case 3: {
      const double d = std::get<double>(v_);
      // Only exact integers in range convert: silent truncation would hide bugs.
      if (d != std::trunc(d) || d < -kTwoPow63 || d >= kTwoPow63) {
        impossible("not an integer: " + formatDouble(d));
      }
      return static_cast<std::int64_t>(d);
    }
    case 4: {
      std::int64_t value = 0;
      if (!parseWhole(std::get<std::string>(v_), value)) {
        impossible("not an integer: \"" + std::get<std::string>(v_) + "\"");
      }
      return value;
    }
    default:
      impossible("NULL is not an integer");
  }
}

double Value::asDouble() const {
  switch (v_.index()) {
    case 1:
      return std::get<bool>(v_) ? 1.0 : 0.0;
    case 2:
      return static_cast<double>(std::get<std::int64_t>(v_));
    case 3:
      return std::get<double>(v_);
    case 4: {
      double value = 0;
      if (!parseWhole(std::get<std::string>(v_), value)) {
        impossible("not a number: \"" + std::get<std::string>(v_) + "\"");
      }
      return value;
    }
    default:
      impossible("NULL is not a number");
  }
}

// PostgreSQL's text form of BOOLEAN is "t"/"f"; SQLite stores 0/1.
bool Value::asBool() const {
  switch (v_.index()) {
    case 1:
      return std::get<bool>(v_);
    case 2:
      return std::get<std::int64_t>(v_) != 0;
    case 3:
      return std::get<double>(v_) != 0.0;
    case 4: {
      const auto& s = std::get<std::string>(v_);
      if (s == "t" || s == "true" || s == "1") return true;
      if (s == "f" || s == "false" || s == "0") return false;
      impossible("not a boolean: \"" + s + "\"");
    }
    default:
      impossible("NULL is not a boolean");
  }
}

Json Value::toJson() const {
  switch (v_.index()) {
    case 1:
      return Json(std::get<bool>(v_));
    case 2:
      return Json(static_cast<long long>(std::get<std::int64_t>(v_)));
    case 3:
      return Json(std::get<double>(v_));
    case 4:
      return Json(std::get<std::string>(v_));
    default:
      return Json();
  }
}

Row::Row(std::shared_ptr<const std::vector<std::string>> columns, std::vector<Value> values)
    : columns_(std::move(columns)), values_(std::move(values)) {}

// Linear scan: rows have few columns, and a scan beats hashing at that size.
const Value& Row::operator[](std::string_view column) const {
  if (columns_) {
    const auto& names = *columns_;
    for (std::size_t i = 0; i < names.size() && i < values_.size(); ++i) {
      if (names[i] == column) return values_[i];
    }
  }
  throw std::logic_error("unknown column " + std::string(column));
}

std::string Row::str(std::string_view column) const {
  const Value& value = (*this)[column];
  return value.isNull() ? std::string() : value.asString();
}

std::optional<std::string> Row::optStr(std::string_view column) const {
  const Value& value = (*this)[column];
  if (value.isNull()) return std::nullopt;
  return value.asString();
}

std::int64_t Row::i64(std::string_view column) const {
  const Value& value = (*this)[column];
  if (value.isNull()) throw std::logic_error("column " + std::string(column) + " is NULL");
  return value.asInt();
}

std::optional<std::int64_t> Row::optI64(std::string_view column) const {
  const Value& value = (*this)[column];
  if (value.isNull()) return std::nullopt;
  return value.asInt();
}

bool Row::flag(std::string_view column) const {
  const Value& value = (*this)[column];
  if (value.isNull()) throw std::logic_error("column " + std::string(column) + " is NULL");
  return value.asBool();
}

}  // namespace rapport
