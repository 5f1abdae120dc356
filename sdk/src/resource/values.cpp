// The record engine's values: a body read by each field's rule, a row as the
// record's JSON, and the list's historic query parameters as a WHERE clause.
#include <algorithm>

#include "../search_sql.h"
#include "internal.h"
#include "rapport/error.h"
#include "rapport/request_rules.h"
#include "rapport/search.h"
#include "rapport/time.h"
#include "rapport/validation.h"

namespace rapport {
namespace resource_detail {
namespace {

Value valueOf(const Json& json) {
  switch (json.type()) {
    case Json::Type::Bool:
      return Value(json.asBool());
    case Json::Type::Int:
      return Value(json.asInt());
    case Json::Type::String:
      return Value(json.asString());
    default:
      return Value();
  }
}

template <typename T>
Value valueOf(const Field<T>& read) {
  return read.value ? Value(*read.value) : Value();
}

// One field read by its kind's rule: whether the body had it, and its
// column values (null when sent as null, or when it broke the rule: the
// validator has the message then).
struct Read {
  bool present = false;
  std::vector<Value> values = {Value()};
};

template <typename T>
Read readOf(const Field<T>& read) {
  return {read.present, {valueOf(read)}};
}

Read readTags(Validator& v, const ResourceField& field) {
  const Field<std::vector<std::string>> tags = v.tags(field.name);
  // Absent on create, or null: no tags.
  return {tags.present, {Value(tagsToJsonText(tags.valueOr({})))}};
}

Read readReference(Validator& v, const ResourceField& field, bool required,
                   const std::set<std::string>& unavailable) {
  const Field<std::string> id = v.id(field.name, required);
  const ResourceReference& target = field.references.front();
  if (id.value && !isAvailable(target, unavailable)) {
    v.fail(field.name, unavailableFieldMessage(field, target));
  }
  return readOf(id);
}

// {"type", "id"} or null. Its members are checked under their dotted names
// (related_to.type, related_to.id) by a validator of their own, whose
// messages join `v`'s.
Read readRelated(Validator& v, const Json& body, const ResourceField& field, bool required,
                 const std::set<std::string>& unavailable) {
  Read out{.present = false, .values = {Value(), Value()}};
  const Json* value = body.find(field.name);
  out.present = value != nullptr;
  if (value == nullptr || value->isNull()) {
    if (required) v.fail(field.name, "The " + field.name + " field is required.");
    return out;
  }
  if (!value->isObject()) {
    v.fail(field.name, "The " + field.name + " must be an object.");
    return out;
  }
  const std::string typeName = field.name + ".type";
  const std::string idName = field.name + ".id";
  Json flat = Json::object();
  if (const Json* type = value->find("type")) flat.set(typeName, *type);
  if (const Json* id = value->find("id")) flat.set(idName, *id);
  Validator nested(flat);
  std::vector<std::string> types;
  for (const ResourceReference& target : field.references) types.push_back(target.recordType);
  const auto type = nested.oneOf(typeName, types, true);
  const auto id = nested.id(idName, true);
  if (type.value) {
    const auto& target =
        *std::find_if(field.references.begin(), field.references.end(),
                      [&](const ResourceReference& t) { return t.recordType == *type.value; });
    if (!isAvailable(target, unavailable)) nested.fail(typeName, unavailableTypeMessage(target));
  }
  for (const auto& [name, messages] : nested.errors()) {
    for (const std::string& message : messages) v.fail(name, message);
  }
  if (nested.ok()) out.values = {Value(*type.value), Value(*id.value)};
  return out;
}

Read readField(Validator& v, const Json& body, const ResourceField& field, bool required,
               const std::set<std::string>& unavailable) {
  const std::string& name = field.name;
  switch (field.kind) {
    case FieldKind::Text: {
      if (required) return readOf(v.string(name, {.required = true, .max = field.maxLength}));
      return readOf(optionalText(v, name, field.maxLength));
    }
    case FieldKind::Email:
      return readOf(v.email(name, required));
    case FieldKind::Url:
      return readOf(v.url(name, required));
    case FieldKind::Integer:
      return readOf(v.integer(name, {.required = required, .min = field.min, .max = field.max}));
    case FieldKind::Money:
      return readOf(v.integer(name, {.required = required, .min = 0, .max = field.max}));
    case FieldKind::Boolean:
      return readOf(v.boolean(name, required));
    case FieldKind::Date:
      return readOf(v.date(name, required));
    case FieldKind::Currency:
      return readOf(v.currency(name, required));
    case FieldKind::DateTime:
      return readOf(v.timestamp(name, required));
    case FieldKind::Enum:
      return readOf(v.oneOf(name, field.options, required));
    case FieldKind::Tags:
      return readTags(v, field);
    case FieldKind::Reference:
      return readReference(v, field, required, unavailable);
    case FieldKind::Related:
      return readRelated(v, body, field, required, unavailable);
  }
  return {};
}

// A filter's text as the field's column holds it; nullopt (with a message in
// `errors`) when it is malformed.
std::optional<Value> filterValue(const ResourceField& field, const std::string& text,
                                 FieldErrors& errors) {
  if (field.kind == FieldKind::Boolean) {
    if (text == "true" || text == "false") return Value(text == "true");
    errors[field.name].push_back("The " + field.name + " field must be true or false.");
    return std::nullopt;
  }
  if (isNumberKind(field.kind)) {
    const Json number = [&] {
      try {
        return Json::parse(text);
      } catch (const JsonParseError&) {
        return Json();
      }
    }();
    if (number.isInt()) return Value(number.asInt());
    errors[field.name].push_back("The " + field.name + " must be an integer.");
    return std::nullopt;
  }
  // The column holds microseconds: the value is read as a body's is.
  if (field.kind == FieldKind::DateTime) {
    if (const auto micros = parseIsoTimestamp(text)) return Value(*micros);
    errors[field.name].push_back("The " + field.name + " is not a valid date-time.");
    return std::nullopt;
  }
  if (field.kind == FieldKind::Enum &&
      std::find(field.options.begin(), field.options.end(), text) == field.options.end()) {
    errors[field.name].push_back("The selected " + field.name + " is invalid.");
    return std::nullopt;
  }
  if (field.kind == FieldKind::Email) return Value(toLower(text));
  return Value(text);
}

// The ?<name>= filter of one field, added to `where`.
void addFieldFilter(WhereClause& where, const ResourceField& field, const Request& request,
                    const std::set<std::string>& unavailable, FieldErrors& errors) {
  const auto text = filterParam(request, field.name);
  if (!text) return;
  if (field.kind == FieldKind::Reference && !isAvailable(field.references.front(), unavailable)) {
    errors[field.name].push_back(unavailableFieldMessage(field, field.references.front()));
    return;
  }
  const auto value = filterValue(field, *text, errors);
  if (!value) return;
  const std::string column = columnOf(field);
  if (field.anyCase) {
    where.add("lower(" + column + ") = lower(?)", {*value});
  } else {
    where.add(column + " = ?", {*value});
  }
}

// ?search=: the search index of the declared fields, and the company's text
// custom fields' values (custom_fields.h), any of them holding the term.
void addSearch(WhereClause& where, const ResourceSpec& spec, const std::string& term,
               const std::vector<std::string>& customSearch, Queryable* db) {
  const std::string fts = spec.table + "_search";
  if (customSearch.empty()) {
    if (db != nullptr) {
      addTextSearch(*db, where, spec.table, fts, term);
    } else {
      addTextSearch(where, fts, term);
    }
    return;
  }
  std::string ids;
  for (const std::string& id : customSearch) ids += (ids.empty() ? "'" : ", '") + id + "'";
  const std::string like = likeContains(toLower(term));
  const std::string custom =
      "id IN (SELECT record_id FROM custom_field_values WHERE field_id IN (" + ids +
      ") AND (v_text LIKE ? ESCAPE '\\' OR v_long LIKE ? ESCAPE '\\'))";
  const Params customParams{like, like};
  if (!anySearchable(spec)) {
    where.addBound(custom, customParams);
    return;
  }
  // SQLite reads the declared fields' matches from the index (the term's
  // rarest trigrams when `db` can count them: search_sql.h); PostgreSQL's
  // OR is planned as one scan, so its own side stays a LIKE.
  const bool fullText = where.dialect() == Dialect::SQLite && utf8Length(term) >= kTrigramLength;
  detail::IndexedTerm own{"search_text LIKE ? ESCAPE '\\'", {like}};
  if (fullText) own = detail::indexedTerm(db, Dialect::SQLite, spec.table, fts, term);
  Params params = own.params;
  params.insert(params.end(), customParams.begin(), customParams.end());
  where.addBound("((" + own.sql + ") OR " + custom + ")", params, fullText);
}

}  // namespace

Json fieldJson(const ResourceField& field, const Row& row) {
  const std::string column = columnOf(field);
  switch (field.kind) {
    case FieldKind::Boolean:
      return row.isNull(column) ? Json() : Json(row.flag(column));
    case FieldKind::DateTime:
      return row.isNull(column) ? Json() : Json(isoTimestamp(row.i64(column)));
    case FieldKind::Tags:
      return Json::parse(row.str(column));
    case FieldKind::Related: {
      const std::string type = relatedTypeColumn(field);
      if (row.isNull(type)) return Json();
      return Json::object({{"type", row.str(type)}, {"id", row.str(relatedIdColumn(field))}});
    }
    default:
      return row[column].toJson();
  }
}

WhereClause whereOf(const ResourceSpec& spec, const Request& request, Dialect dialect,
                    const std::string& tenant, const std::set<std::string>& unavailable,
                    const ResourceField* parent, const std::vector<std::string>& customSearch,
                    Queryable* db) {
  FieldErrors errors;
  WhereClause where(dialect, tenant);
  if (anySearchable(spec) || !customSearch.empty()) {
    if (const auto term = searchParam(request, errors)) {
      addSearch(where, spec, *term, customSearch, db);
    }
  }
  // The tag table's names only for a list that asks for a tag.
  if (const auto tag = filterParam(request, "tag")) {
    if (const auto tags = tagNamesOf(spec)) addTagFilter(where, tags->view(), *tag);
  }
  for (const ResourceField& field : spec.fields) {
    if (field.filterable && &field != parent) {
      addFieldFilter(where, field, request, unavailable, errors);
    }
  }
  if (spec.rules.listFilters) spec.rules.listFilters(request, where, errors);
  if (!errors.empty()) throw Error::validation(std::move(errors));
  return where;
}

Value matchValue(const ResourceField& field, const Json& data) {
  Validator v(data);
  const Read read = readField(v, data, field, true, {});
  v.check();
  return read.values.front();
}

}  // namespace resource_detail

using namespace resource_detail;

const Value* findValue(const ResourceValues& values, const std::string& column) {
  const auto found = std::find_if(values.begin(), values.end(),
                                  [&](const auto& entry) { return entry.first == column; });
  return found == values.end() ? nullptr : &found->second;
}

void setValue(ResourceValues& values, const std::string& column, Value value) {
  const auto found = std::find_if(values.begin(), values.end(),
                                  [&](const auto& entry) { return entry.first == column; });
  if (found != values.end()) {
    found->second = std::move(value);
  } else {
    values.emplace_back(column, std::move(value));
  }
}

ResourceValues Resource::validate(const Json& body, ResourceWrite write,
                                  const std::set<std::string>& unavailable) const {
  Validator v(body);
  ResourceValues values;
  const bool creating = write == ResourceWrite::Create;
  for (const ResourceField& field : spec_->fields) {
    if (field.access == FieldAccess::ReadOnly) {
      // Written by the module's rules and actions; a new record starts at
      // its default.
      if (creating && field.defaultValue) {
        values.emplace_back(columnOf(field), valueOf(*field.defaultValue));
      }
      continue;
    }
    // PATCH may leave a required field out, but never clear it; a
    // create-only one is only compared with the stored value (a 422 "cannot
    // be changed" when it differs, null included).
    const bool patchable = field.access != FieldAccess::CreateOnly;
    const bool required = field.required && (creating || (patchable && v.present(field.name)));
    const Read read = readField(v, body, field, required, unavailable);
    if (!creating && !read.present) continue;
    const bool useDefault = read.values.front().isNull() && field.defaultValue;
    const std::vector<std::string> columns = columnsOf(field);
    for (std::size_t i = 0; i < columns.size(); ++i) {
      values.emplace_back(columns[i], useDefault ? valueOf(*field.defaultValue) : read.values[i]);
    }
  }
  if (spec_->rules.check) spec_->rules.check(v, write);
  v.check();
  return values;
}

std::string Resource::columns() const {
  std::string columns = "id";
  for (const ResourceField& field : spec_->fields) {
    for (const std::string& column : columnsOf(field)) columns += ", " + column;
  }
  columns += ", created_at, updated_at";
  // Custom fields (since 9.0): the stored JSON, shown through the company's
  // definitions by the engine's handlers.
  if (!spec_->customFields.migration.empty()) columns += ", custom_fields";
  return columns;
}

Json Resource::toJson(const Row& row) const {
  Json json = Json::object({{"id", row.str("id")}});
  for (const ResourceField& field : spec_->fields) json.set(field.name, fieldJson(field, row));
  json.set("created_at", isoTimestamp(row.i64("created_at")));
  json.set("updated_at", isoTimestamp(row.i64("updated_at")));
  return json;
}

WhereClause Resource::where(const Request& request, Dialect dialect, const std::string& tenant,
                            const std::set<std::string>& unavailable) const {
  return whereOf(*spec_, request, dialect, tenant, unavailable, nullptr);
}

}  // namespace rapport
