// A record's custom values: read from a body by each definition's type,
// checked against the company's records, stored as JSON on the record and
// as typed rows in custom_field_values (and custom_field_unique), shown as
// the record's custom_fields.
#include <algorithm>
#include <cmath>
#include <regex>

#include "internal.h"
#include "rapport/db.h"
#include "rapport/error.h"
#include "rapport/time.h"
#include "rapport/validation.h"

namespace rapport::custom_fields {
namespace {

constexpr double kDecimalScale = 1'000'000.0;
constexpr double kDecimalLimit = 1e12;  // |value| below it: exact in micro-units

std::string nameOf(const CustomFieldDefinition& d) {
  return "custom_fields." + d.key;
}

bool isPhone(const std::string& text) {
  static const std::regex pattern(R"(^\+?[0-9 ().\-]{3,32}$)");
  return std::regex_match(text, pattern) &&
         std::any_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

Json readDecimal(Validator& v, const std::string& name, const Json& value) {
  if (!value.isNumber()) {
    v.fail(name, "The " + name + " must be a number.");
    return Json();
  }
  const double number = value.asDouble();
  const double scaled = number * kDecimalScale;
  const double rounded = std::round(scaled);
  if (!std::isfinite(number) || std::fabs(number) >= kDecimalLimit ||
      std::fabs(scaled - rounded) > 1e-6 * std::max(1.0, std::fabs(scaled))) {
    v.fail(name, "The " + name + " must be a number with at most 6 decimals, below 10^12.");
    return Json();
  }
  const auto micros = static_cast<long long>(rounded);
  if (micros % 1'000'000 == 0) return Json(micros / 1'000'000);
  return Json(static_cast<double>(micros) / kDecimalScale);
}

Json readMultiSelect(Validator& v, const std::string& name, const Json& value,
                     const CustomFieldDefinition& d) {
  if (!value.isArray()) {
    v.fail(name, "The " + name + " must be an array of option values.");
    return Json();
  }
  std::set<std::string> seen;
  for (const Json& item : value.asArray()) {
    const bool known = item.isString() && std::any_of(d.options.begin(), d.options.end(),
                                                      [&](const CustomFieldOption& o) {
                                                        return o.value == item.asString();
                                                      });
    if (!known) {
      v.fail(name, "The " + name + " holds a value that is not one of its options.");
      return Json();
    }
    if (!seen.insert(item.asString()).second) {
      v.fail(name, "The " + name + " holds " + item.asString() + " twice.");
      return Json();
    }
  }
  return value;
}

template <typename T>
Json jsonOf(const Field<T>& read) {
  return read.value ? Json(*read.value) : Json();
}

// One value, by the definition's type; null when it breaks the rule (the
// validator then has the message).
Json readOne(Validator& v, const CustomFieldDefinition& d, const Json& value) {
  const std::string name = nameOf(d);
  switch (d.type) {
    case CustomFieldType::Text: {
      const auto text = v.string(name, {.max = 255});
      return text.value && !text.value->empty() ? Json(*text.value) : Json();
    }
    case CustomFieldType::LongText: {
      const auto text = v.string(name, {.max = 10000, .trim = false});
      return text.value && !text.value->empty() ? Json(*text.value) : Json();
    }
    case CustomFieldType::Number:
      return jsonOf(v.integer(name));
    case CustomFieldType::Decimal:
      return readDecimal(v, name, value);
    case CustomFieldType::Money:
      return jsonOf(v.money(name));
    case CustomFieldType::Boolean:
      return jsonOf(v.boolean(name));
    case CustomFieldType::Date:
      return jsonOf(v.date(name));
    case CustomFieldType::DateTime: {
      const auto micros = v.timestamp(name);
      return micros.value ? Json(isoTimestamp(*micros.value)) : Json();
    }
    case CustomFieldType::Select: {
      std::vector<std::string> values;
      for (const CustomFieldOption& o : d.options) values.push_back(o.value);
      return jsonOf(v.oneOf(name, values));
    }
    case CustomFieldType::MultiSelect:
      return readMultiSelect(v, name, value, d);
    case CustomFieldType::Email:
      return jsonOf(v.email(name));
    case CustomFieldType::Url:
      return jsonOf(v.url(name));
    case CustomFieldType::Phone: {
      const auto text = v.string(name, {.max = 32});
      if (text.value && !isPhone(*text.value)) {
        v.fail(name, "The " + name + " must be a phone number (digits, spaces, + - ( ) .).");
        return Json();
      }
      return text.value && !text.value->empty() ? Json(*text.value) : Json();
    }
    case CustomFieldType::User:
    case CustomFieldType::Reference:
      return jsonOf(v.id(name));
  }
  return Json();
}

const CustomFieldDefinition* byKey(const CustomFieldSet& fields, const std::string& key) {
  const auto it = std::find_if(fields.begin(), fields.end(),
                               [&](const CustomFieldDefinition& d) { return d.key == key; });
  return it == fields.end() ? nullptr : &*it;
}

const CustomFieldDefinition* byId(const CustomFieldSet& fields, const std::string& id) {
  const auto it = std::find_if(fields.begin(), fields.end(),
                               [&](const CustomFieldDefinition& d) { return d.id == id; });
  return it == fields.end() ? nullptr : &*it;
}

// The side rows' values of one field's value: (v_text, v_num, v_long).
struct SideValue {
  Value text, number, longText;
};

std::vector<SideValue> sideValuesOf(const CustomFieldDefinition& d, const Json& value) {
  if (value.isNull()) return {};
  switch (d.type) {
    case CustomFieldType::Number:
    case CustomFieldType::Money:
      return {{Value(), Value(static_cast<long long>(value.asInt())), Value()}};
    case CustomFieldType::Decimal:
      return {{Value(),
               Value(static_cast<long long>(std::llround(value.asDouble() * kDecimalScale))),
               Value()}};
    case CustomFieldType::Boolean:
      return {{Value(), Value(value.asBool() ? 1LL : 0LL), Value()}};
    case CustomFieldType::DateTime:
      return {
          {Value(), Value(static_cast<long long>(*parseIsoTimestamp(value.asString()))), Value()}};
    case CustomFieldType::LongText:
      return {{Value(), Value(), Value(toLower(value.asString()))}};
    case CustomFieldType::MultiSelect: {
      std::vector<SideValue> out;
      for (const Json& option : value.asArray()) out.push_back({Value(option.asString()), {}, {}});
      return out;
    }
    case CustomFieldType::Select:
    case CustomFieldType::Date:
    case CustomFieldType::User:
    case CustomFieldType::Reference:
      return {{Value(value.asString()), Value(), Value()}};
    default:  // text, email, url, phone: compared in any case
      return {{Value(toLower(value.asString())), Value(), Value()}};
  }
}

// A unique field's value as custom_field_unique stores it.
std::string uniqueValueOf(const CustomFieldDefinition& d, const Json& value) {
  if (d.type == CustomFieldType::Number) return std::to_string(value.asInt());
  return toLower(value.asString());
}

}  // namespace

CustomValues readValues(const Json& body, const CustomFieldSet& fields, bool creating,
                        FieldErrors& errors) {
  CustomValues out;
  const Json* sent = body.find("custom_fields");
  if (sent != nullptr && !sent->isNull() && !sent->isObject()) {
    errors["custom_fields"].push_back("The custom_fields must be an object.");
    return out;
  }
  Json flat = Json::object();
  if (sent != nullptr && sent->isObject()) {
    for (const auto& [key, value] : sent->asObject()) {
      if (byKey(fields, key) == nullptr) {
        errors["custom_fields." + key].push_back("The custom_fields." + key +
                                                 " field is not defined.");
      } else {
        flat.set("custom_fields." + key, value);
      }
    }
  }
  Validator v(flat);
  for (const CustomFieldDefinition& d : fields) {
    const Json* value = flat.find(nameOf(d));
    if (value == nullptr) {
      if (!creating) continue;
      if (d.required && d.defaultValue.isNull()) {
        v.fail(nameOf(d), "The " + nameOf(d) + " field is required.");
      }
      out[d.id] = d.defaultValue;
      continue;
    }
    Json read = value->isNull() ? Json() : readOne(v, d, *value);
    if (read.isNull() && d.required && !v.errors().contains(nameOf(d))) {
      v.fail(nameOf(d), "The " + nameOf(d) + " field is required.");
    }
    out[d.id] = std::move(read);
  }
  for (const auto& [name, messages] : v.errors()) {
    for (const std::string& message : messages) errors[name].push_back(message);
  }
  return out;
}

void checkReferences(Tx& tx, const RecordDirectory& records, const CustomFieldSet& fields,
                     const CustomValues& values) {
  FieldErrors errors;
  for (const auto& [id, value] : values) {
    const CustomFieldDefinition* d = byId(fields, id);
    if (d == nullptr || value.isNull()) continue;
    if (d->type != CustomFieldType::User && d->type != CustomFieldType::Reference) continue;
    const std::string type = d->type == CustomFieldType::User ? "user" : d->target;
    if (!records.lockForReference(tx, type, value.asString())) {
      errors[nameOf(*d)].push_back("The " + nameOf(*d) + " must be the id of " +
                                   (type == "user" ? std::string("a member") : "a " + type) +
                                   " of the company.");
    }
  }
  if (!errors.empty()) throw Error::validation(std::move(errors));
}

std::string mergedJson(const Json& shown, const CustomFieldSet& fields,
                       const CustomValues& values) {
  Json out = Json::object();
  for (const CustomFieldDefinition& d : fields) {
    const Json& value = shown[d.key];
    if (!value.isNull()) out.set(d.id, value);
  }
  for (const auto& [id, value] : values) {
    if (value.isNull()) {
      out.erase(id);
    } else {
      out.set(id, value);
    }
  }
  return out.dump();
}

void writeIndexRows(Tx& tx, const CustomFieldSet& fields, const CustomValues& values,
                    const std::string& recordId, std::int64_t createdAt, bool creating,
                    const std::string& duplicateMessage, const std::string& subject) {
  // A record's rows change in at most three statements (the rows of the
  // changed fields removed, then the new ones in one insert), plus one per
  // unique value: a create with 20 custom fields is one more statement.
  std::string changed;
  Params changedParams;
  std::string rows;
  Params rowParams;
  for (const auto& [id, value] : values) {
    const CustomFieldDefinition* d = byId(fields, id);
    if (d == nullptr) continue;
    changed += changed.empty() ? "?" : ", ?";
    changedParams.push_back(id);
    for (const SideValue& side : sideValuesOf(*d, value)) {
      rows += rows.empty() ? "(?, ?, ?, ?, ?, ?, ?)" : ", (?, ?, ?, ?, ?, ?, ?)";
      rowParams.insert(rowParams.end(),
                       {Value(tx.companyId()), Value(id), Value(recordId), side.text, side.number,
                        side.longText, Value(static_cast<long long>(createdAt))});
    }
  }
  if (changed.empty()) return;
  if (!creating) {
    changedParams.push_back(recordId);
    tx.exec("DELETE FROM custom_field_values WHERE field_id IN (" + changed + ") AND record_id = ?",
            changedParams);
  }
  if (!rows.empty()) {
    tx.exec(
        "INSERT INTO custom_field_values (company_id, field_id, record_id, v_text, v_num, v_long, "
        "created_at) VALUES " +
            rows,
        rowParams);
  }
  for (const auto& [id, value] : values) {
    const CustomFieldDefinition* d = byId(fields, id);
    if (d == nullptr || !d->unique) continue;
    if (!creating) {
      tx.exec("DELETE FROM custom_field_unique WHERE field_id = ? AND record_id = ?",
              {id, recordId});
    }
    if (value.isNull()) continue;
    try {
      tx.exec("INSERT INTO custom_field_unique (field_id, value, record_id) VALUES (?, ?, ?)",
              {id, uniqueValueOf(*d, value), recordId});
    } catch (const DbError& e) {
      if (!e.isUniqueViolation()) throw;
      throw Error::conflict(duplicateMessage.empty()
                                ? subject + " with this " + d->key + " already exists."
                                : duplicateMessage);
    }
  }
}

std::optional<std::string> matchRecord(Queryable& db, const CustomFieldSet& fields,
                                       const std::string& key, const Json& data) {
  const CustomFieldDefinition* d = byKey(fields, key);
  if (d == nullptr || !d->unique) {
    throw Error::invalidField(
        "match_on", "The match_on must name a unique field; custom_fields." + key + " is not one.");
  }
  FieldErrors errors;
  const Json sent = data["custom_fields"][key];
  const CustomValues read = readValues(
      Json::object({{"custom_fields", Json::object({{key, sent}})}}), {*d}, false, errors);
  if (!errors.empty()) throw Error::validation(std::move(errors));
  const Json& value = read.at(d->id);
  if (value.isNull()) {
    throw Error::invalidField(nameOf(*d), "The " + nameOf(*d) + " field is required to match on.");
  }
  const Result found =
      db.query("SELECT record_id FROM custom_field_unique WHERE field_id = ? AND value = ?",
               {d->id, uniqueValueOf(*d, value)});
  if (found.empty()) return std::nullopt;
  return found.front().str("record_id");
}

void deleteIndexRows(Tx& tx, const CustomFieldSet& fields, const std::string& recordId) {
  // Every row of the record, a deleted field's too (the record index).
  tx.exec("DELETE FROM custom_field_values WHERE record_id = ?", {recordId});
  for (const CustomFieldDefinition& d : fields) {
    if (d.unique) {
      tx.exec("DELETE FROM custom_field_unique WHERE field_id = ? AND record_id = ?",
              {d.id, recordId});
    }
  }
}

Json valuesJson(const std::string& stored, const CustomFieldSet& fields) {
  const Json values = stored.empty() ? Json::object() : Json::parse(stored);
  // Appended, not set(): the keys are distinct, and set() would search the
  // object for each of them.
  Json::Object out;
  out.reserve(fields.size());
  for (const CustomFieldDefinition& d : fields) out.emplace_back(d.key, values[d.id]);
  return Json(std::move(out));
}

std::vector<QueryField> queryFields(const CustomFieldSet& fields, const std::string& table) {
  std::vector<QueryField> out;
  for (const CustomFieldDefinition& d : fields) {
    QueryField f;
    f.name = "custom_fields." + d.key;
    const Column column = columnOf(d.type);
    f.column = columnName(column);
    f.sideTable = kValues;
    f.sideKey = "field_id = '" + d.id + "'";  // a server-made id: [a-z0-9_]
    switch (d.type) {
      case CustomFieldType::Number:
      case CustomFieldType::Money:
        f.kind = QueryKind::Number;
        break;
      case CustomFieldType::Decimal:
        f.kind = QueryKind::Decimal;
        break;
      case CustomFieldType::Boolean:
        f.kind = QueryKind::Boolean;
        break;
      case CustomFieldType::Date:
        f.kind = QueryKind::Date;
        break;
      case CustomFieldType::DateTime:
        f.kind = QueryKind::DateTime;
        break;
      case CustomFieldType::Select:
        f.kind = QueryKind::Enum;
        for (const CustomFieldOption& o : d.options) f.options.push_back(o.value);
        break;
      case CustomFieldType::MultiSelect:
        f.kind = QueryKind::Tags;
        f.sortable = false;
        break;
      case CustomFieldType::User:
      case CustomFieldType::Reference:
        f.kind = QueryKind::Id;
        break;
      default:
        f.kind = QueryKind::Text;
    }
    // The sort: the record's value, its absence first in ascending order
    // (as a nullable column's coalesce does on both engines).
    const std::string missing = column == Column::Number ? "-9223372036854775807" : "''";
    f.sortExpression = "coalesce((SELECT " + f.column + " FROM custom_field_values WHERE " +
                       f.sideKey + " AND record_id = " + table + ".id), " + missing + ")";
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace rapport::custom_fields
