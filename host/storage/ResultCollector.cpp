#include "storage/ResultCollector.h"

#include <Poco/Data/AbstractExtractor.h>
#include <Poco/Exception.h>

#include <charconv>

namespace rapport::host {
namespace {

using Type = Poco::Data::MetaColumn::ColumnDataType;

template <typename T>
bool parseWhole(const std::string& text, T& value) {
  const char* end = text.data() + text.size();
  const auto result = std::from_chars(text.data(), end, value);
  return !text.empty() && result.ec == std::errc() && result.ptr == end;
}

bool isIntegerType(Type type) {
  switch (type) {
    case Type::FDT_INT8:
    case Type::FDT_UINT8:
    case Type::FDT_INT16:
    case Type::FDT_UINT16:
    case Type::FDT_INT32:
    case Type::FDT_UINT32:
    case Type::FDT_INT64:
    case Type::FDT_UINT64:
      return true;
    default:
      return false;
  }
}

// Parsed with from_chars, not Poco: Poco's parse64 rounds below -2^53.
Value integerValue(std::string text) {
  std::int64_t value = 0;
  if (parseWhole(text, value)) return Value(value);
  return Value(std::move(text));
}

// Poco reports NUMERIC as a double too: integral text (SUM over BIGINT) stays
// an exact integer, as SQLite returns it.
Value numberValue(std::string text) {
  std::int64_t integer = 0;
  if (parseWhole(text, integer)) return Value(integer);
  double value = 0;
  if (parseWhole(text, value)) return Value(value);
  return Value(std::move(text));
}

Value postgresValue(Type type, std::string text) {
  if (type == Type::FDT_BOOL) {
    if (text == "t") return Value(true);
    if (text == "f") return Value(false);
  }
  if (isIntegerType(type)) return integerValue(std::move(text));
  if (type == Type::FDT_FLOAT || type == Type::FDT_DOUBLE) return numberValue(std::move(text));
  return Value(std::move(text));
}

}  // namespace

std::size_t ResultCollector::extract(std::size_t /*pos*/) {
  if (!columns_) columns_ = describe();
  std::vector<Value> values;
  values.reserve(columns_->size());
  for (std::size_t i = 0; i < columns_->size(); ++i) values.push_back(read(i));
  rows_.emplace_back(columns_, std::move(values));
  return 1;
}

void ResultCollector::reset() {
  rows_.clear();
  columns_.reset();
  forget();
}

ResultCollector::Columns PostgresResultCollector::describe() {
  if (columns_) return columns_;
  auto names = std::make_shared<std::vector<std::string>>();
  for (std::size_t i = 0;; ++i) {
    try {
      const Poco::Data::MetaColumn& column = meta_(i);
      names->push_back(column.name());
      types_.push_back(column.type());
    } catch (const Poco::Exception&) {
      break;  // past the last column
    }
  }
  columns_ = std::move(names);
  return columns_;
}

Value PostgresResultCollector::read(std::size_t column) {
  std::string text;
  if (!getExtractor()->extract(column, text)) return Value();
  return postgresValue(types_.at(column), std::move(text));
}

}  // namespace rapport::host
