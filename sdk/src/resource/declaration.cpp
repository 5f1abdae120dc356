// The record engine's declaration: its checks, the names and words derived
// from it, and the query language it gives clients (record_query.h).
#include <algorithm>
#include <stdexcept>

#include "internal.h"
#include "rapport/error.h"
#include "rapport/scopes.h"

namespace rapport {
namespace resource_detail {
namespace {

bool isIdentifier(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

bool defaultMatchesKind(const ResourceField& field) {
  const Json& value = *field.defaultValue;
  if (field.kind == FieldKind::Boolean) return value.isBool();
  if (isNumberKind(field.kind)) return value.isInt();
  if (field.kind == FieldKind::Enum) {
    return value.isString() && std::find(field.options.begin(), field.options.end(),
                                         value.asString()) != field.options.end();
  }
  return value.isString();
}

[[noreturn]] void refuse(const std::string& message) {
  throw std::invalid_argument("resource declaration: " + message);
}

void checkReferences(const ResourceField& field) {
  const bool pointing = field.kind == FieldKind::Reference || field.kind == FieldKind::Related;
  if (!pointing && !field.references.empty()) {
    refuse("only a Reference or Related field has references ('" + field.name + "')");
  }
  if (field.kind == FieldKind::Reference && field.references.size() != 1) {
    refuse("the reference '" + field.name + "' needs exactly one target");
  }
  if (field.kind == FieldKind::Related && field.references.empty()) {
    refuse("the related field '" + field.name + "' needs at least one target");
  }
  for (const ResourceReference& target : field.references) {
    if (target.recordType.empty() || target.notFound.empty()) {
      refuse("a target of '" + field.name + "' needs a record type and its notFound message");
    }
  }
}

void checkField(const ResourceField& field, std::set<std::string>& names) {
  static const std::set<std::string> kReserved = {"id",         "company_id",  "created_at",
                                                  "updated_at", "search_text", "seq"};
  if (!isIdentifier(field.name)) refuse("invalid field name '" + field.name + "'");
  // A reference may answer as company_id while its column is crm_company_id.
  if (kReserved.count(field.name) && field.column.empty()) {
    refuse("the field name '" + field.name + "' is reserved");
  }
  if (!field.column.empty() && (!isIdentifier(field.column) || kReserved.count(field.column))) {
    refuse("invalid column '" + field.column + "' for '" + field.name + "'");
  }
  if (!names.insert(field.name).second) refuse("the field '" + field.name + "' is declared twice");
  const bool composite = field.kind == FieldKind::Tags || field.kind == FieldKind::Related;
  if (field.defaultValue && composite) refuse("the field '" + field.name + "' takes no default");
  if (field.defaultValue && !defaultMatchesKind(field)) {
    refuse("the default of '" + field.name + "' does not match its kind");
  }
  if (field.kind == FieldKind::Enum && field.options.empty()) {
    refuse("the enum '" + field.name + "' has no options");
  }
  checkReferences(field);
  if (field.sortable && field.kind == FieldKind::Boolean && !isNotNull(field)) {
    refuse("the sortable boolean '" + field.name + "' needs a default or required");
  }
  if (field.sortable && field.kind == FieldKind::Integer && !isNotNull(field) &&
      (!field.min || *field.min < 0) && field.sortExpression.empty()) {
    refuse("the sortable nullable integer '" + field.name + "' needs min >= 0");
  }
  const bool listed = field.kind == FieldKind::Tags || field.kind == FieldKind::Related;
  if (listed && (field.sortable || field.unique || field.searchable)) {
    refuse("the field '" + field.name + "' cannot be sortable, unique or searchable");
  }
  // ?<name>= compares one column with the text: a Tags field is filtered by
  // ?tag=, a Related one by the query language or the module's listFilters.
  if (listed && field.filterable) refuse("the field '" + field.name + "' cannot be filterable");
  // Its filter and index are on lower(column): PostgreSQL has no lower() of
  // a number or a boolean, and an id or a date has no case.
  if (field.anyCase && !isTextKind(field.kind)) {
    refuse("the any-case field '" + field.name + "' is not text");
  }
  if (field.searchable && !isTextKind(field.kind)) {
    refuse("the searchable field '" + field.name + "' is not text");
  }
}

void checkStorage(const ResourceSpec& spec) {
  const ResourceStorage& storage = spec.storage;
  if (storage.recordColumn.empty()) {
    if (!storage.migration.empty()) refuse("the engine's storage needs its recordColumn");
    if (tagsField(spec) != nullptr) refuse("a Tags field needs the storage's recordColumn");
    return;
  }
  if (storage.recordColumn.size() < 4 || !isIdentifier(storage.recordColumn) ||
      !storage.recordColumn.ends_with("_id")) {
    refuse("the storage's recordColumn must be \"<record>_id\"");
  }
  if (!spec.countsTable.empty()) refuse("the storage's recordColumn names the counts table");
  for (const ResourceField& field : spec.fields) {
    if (field.since.empty()) continue;
    if (storage.migration.empty() || field.since <= storage.migration) {
      refuse("the field '" + field.name + "' is added by a migration after storage.migration");
    }
    if (field.since == countSlotsMigrationId(spec)) {
      refuse("the field '" + field.name + "' is added by the engine's count slots migration (" +
             field.since + ")");
    }
    if (field.kind == FieldKind::Tags || field.searchable) {
      refuse("the field '" + field.name + "' cannot be added later (tags, search)");
    }
    if (field.required && !field.defaultValue) {
      refuse("the field '" + field.name + "' is added later: a required one needs a default");
    }
  }
}

void checkActions(const ResourceSpec& spec) {
  for (const ResourceAction& action : spec.actions) {
    if (action.path.size() < 2 || action.path.front() != '/' || !action.apply ||
        action.event.empty() || action.message.empty()) {
      refuse("an action needs a path \"/<name>\", an event, a message and apply");
    }
  }
}

}  // namespace

bool isTextKind(FieldKind kind) {
  return kind == FieldKind::Text || kind == FieldKind::Email || kind == FieldKind::Url ||
         kind == FieldKind::Currency || kind == FieldKind::Enum;
}

bool isNumberKind(FieldKind kind) {
  return kind == FieldKind::Integer || kind == FieldKind::Money;
}

bool isNotNull(const ResourceField& field) {
  return field.required || field.defaultValue.has_value() || field.kind == FieldKind::Tags;
}

std::string columnOf(const ResourceField& field) {
  return field.column.empty() ? field.name : field.column;
}

std::string relatedTypeColumn(const ResourceField& field) {
  return columnOf(field) + "_type";
}

std::string relatedIdColumn(const ResourceField& field) {
  return columnOf(field) + "_id";
}

std::vector<std::string> columnsOf(const ResourceField& field) {
  if (field.kind == FieldKind::Related) return {relatedTypeColumn(field), relatedIdColumn(field)};
  return {columnOf(field)};
}

const ResourceField* tagsField(const ResourceSpec& spec) {
  const auto found = std::find_if(spec.fields.begin(), spec.fields.end(),
                                  [](const ResourceField& f) { return f.kind == FieldKind::Tags; });
  return found == spec.fields.end() ? nullptr : &*found;
}

const ResourceField* uniqueField(const ResourceSpec& spec) {
  const auto found = std::find_if(spec.fields.begin(), spec.fields.end(),
                                  [](const ResourceField& f) { return f.unique; });
  return found == spec.fields.end() ? nullptr : &*found;
}

bool anySearchable(const ResourceSpec& spec) {
  return std::any_of(spec.fields.begin(), spec.fields.end(),
                     [](const ResourceField& f) { return f.searchable; });
}

std::optional<ListingTables> listingOf(const ResourceSpec& spec) {
  if (spec.storage.recordColumn.empty()) return std::nullopt;
  return ListingTables{.records = spec.table,
                       .recordColumn = spec.storage.recordColumn,
                       .tags = tagsField(spec) != nullptr};
}

std::optional<TagNames> tagNamesOf(const ResourceSpec& spec) {
  const auto listing = listingOf(spec);
  if (!listing || !listing->tags) return std::nullopt;
  return TagNames{.table = listing->tagTable(),
                  .recordColumn = listing->recordColumn,
                  .recordTable = spec.table,
                  .countsTable = listing->tagCountsTable()};
}

std::string countsTableOf(const ResourceSpec& spec) {
  if (const auto listing = listingOf(spec)) return listing->countsTable();
  return spec.countsTable;
}

void checkSpec(const ResourceSpec& spec) {
  if (spec.path.empty() || spec.path.front() != '/') refuse("the path must start with '/'");
  if (!isIdentifier(spec.table)) refuse("invalid table name '" + spec.table + "'");
  if (spec.recordType.empty()) refuse("the record type is empty");
  if (spec.idPrefix.empty()) refuse("the id prefix is empty");
  if (spec.eventPrefix.empty()) refuse("the event prefix is empty");
  if (spec.noun.empty()) refuse("the noun is empty");
  if (!isIdentifier(spec.countsTable) && !spec.countsTable.empty()) {
    refuse("invalid counts table name '" + spec.countsTable + "'");
  }
  std::set<std::string> names;
  for (const ResourceField& field : spec.fields) checkField(field, names);
  const auto count = [&](auto predicate) {
    return std::count_if(spec.fields.begin(), spec.fields.end(), predicate);
  };
  if (count([](const ResourceField& f) { return f.unique; }) > 1) {
    refuse("at most one field may be unique");
  }
  if (count([](const ResourceField& f) { return f.kind == FieldKind::Tags; }) > 1) {
    refuse("at most one field may be Tags");
  }
  checkStorage(spec);
  checkActions(spec);
  const std::string scope = scopeOf(spec);
  if (scope.empty() || scope.find(':') != std::string::npos || scope == kEveryScope ||
      scope == kAnyApiKey || !isValidScopeDeclaration(scope)) {
    refuse("invalid scope name '" + scope + "'");
  }
}

std::string scopeOf(const ResourceSpec& spec) {
  if (!spec.scope.empty()) return spec.scope;
  return spec.path.substr(spec.path.find_last_of('/') + 1);
}

// --- The query language ------------------------------------------------------

namespace {

QueryKind queryKindOf(FieldKind kind) {
  switch (kind) {
    case FieldKind::Integer:
    case FieldKind::Money:
      return QueryKind::Number;
    case FieldKind::Boolean:
      return QueryKind::Boolean;
    case FieldKind::Date:
      return QueryKind::Date;
    case FieldKind::DateTime:
      return QueryKind::DateTime;
    case FieldKind::Enum:
      return QueryKind::Enum;
    case FieldKind::Tags:
      return QueryKind::Tags;
    case FieldKind::Reference:
      return QueryKind::Id;
    default:
      return QueryKind::Text;
  }
}

// A Related field as the query language sees it: <name>.type and <name>.id,
// and include=<column> embedding the record it points to.
void addRelated(RecordSchema& schema, const ResourceField& field) {
  std::vector<std::string> types;
  for (const ResourceReference& target : field.references) types.push_back(target.recordType);
  schema.fields.push_back({.name = field.name + ".type",
                           .column = relatedTypeColumn(field),
                           .kind = QueryKind::Enum,
                           .options = types});
  schema.fields.push_back(
      {.name = field.name + ".id", .column = relatedIdColumn(field), .kind = QueryKind::Id});
  schema.includes.push_back(
      {.name = columnOf(field), .typeField = field.name + ".type", .idField = field.name + ".id"});
}

}  // namespace

RecordSchema querySchemaOf(const ResourceSpec& spec) {
  RecordSchema schema{.recordType = spec.recordType, .table = spec.table};
  for (const ResourceField& field : spec.fields) {
    if (field.kind == FieldKind::Related) {
      addRelated(schema, field);
      continue;
    }
    std::string sort = field.sortExpression;
    if (sort.empty() && field.sortable) sort = sortExpression(field);
    const bool reference = field.kind == FieldKind::Reference;
    schema.fields.push_back({.name = field.name,
                             .column = columnOf(field),
                             .kind = queryKindOf(field.kind),
                             .options = field.options,
                             .nullable = !isNotNull(field),
                             .sortable = field.kind != FieldKind::Tags,
                             // The indexed expression where the field has one.
                             .sortExpression = sort,
                             .reference = reference ? field.references.front().recordType : "",
                             .searchable = field.searchable});
  }
  if (anySearchable(spec)) schema.searchTable = spec.table + "_search";
  if (const auto listing = listingOf(spec); listing && listing->tags) {
    schema.tagTable = listing->tagTable();
    schema.tagRecordColumn = listing->recordColumn;
  }
  schema.countsTable = countsTableOf(spec);
  if (!spec.customFields.migration.empty()) {
    // `fields=custom_fields`, whatever the company defined.
    std::set<std::string> names = {"id", "created_at", "updated_at", "custom_fields"};
    for (const QueryField& f : schema.fields) names.insert(f.name.substr(0, f.name.find('.')));
    schema.outputFields.assign(names.begin(), names.end());
  }
  return schema;
}

// --- Words -------------------------------------------------------------------

std::string withArticle(const std::string& word) {
  const char first = static_cast<char>(std::tolower(static_cast<unsigned char>(word.front())));
  const bool vowel = std::string_view("aeiou").find(first) != std::string_view::npos;
  return (vowel ? "an " : "a ") + word;
}

std::string titleOf(const ResourceSpec& spec) {
  return spec.title.empty() ? toLower(spec.noun) : spec.title;
}

std::string pluralTitleOf(const ResourceSpec& spec) {
  if (!spec.titlePlural.empty()) return spec.titlePlural;
  return titleOf(spec) + "s";
}

std::string schemaNameOf(const ResourceSpec& spec) {
  return spec.schemaName.empty() ? spec.noun : spec.schemaName;
}

std::string subjectOf(const ResourceSpec& spec) {
  std::string subject = withArticle(titleOf(spec));
  subject.front() = 'A';  // "a " or "an ", at the start of a sentence
  return subject;
}

std::string notFoundMessage(const ResourceSpec& spec) {
  return spec.noun + " not found.";
}

std::string duplicateMessage(const ResourceSpec& spec) {
  const ResourceField* field = uniqueField(spec);
  if (field == nullptr) return Error::genericMessage(409);
  if (!field->uniqueMessage.empty()) return field->uniqueMessage;
  std::string message = withArticle(toLower(spec.noun));
  message.front() = 'A';
  return message + " with this " + field->name + " already exists.";
}

std::string unavailableFieldMessage(const ResourceField& field, const ResourceReference& target) {
  return "The " + field.name + " field cannot be used: the " + target.module +
         " module is not enabled.";
}

std::string unavailableTypeMessage(const ResourceReference& target) {
  return "The related type " + target.recordType + " is not available: the " + target.module +
         " module is not enabled.";
}

bool isAvailable(const ResourceReference& target, const std::set<std::string>& unavailable) {
  return target.module.empty() || !unavailable.contains(target.module);
}

}  // namespace resource_detail

using namespace resource_detail;

std::string sortExpression(const ResourceField& field) {
  if (!field.sortExpression.empty()) return field.sortExpression;
  const std::string column =
      field.kind == FieldKind::Related ? relatedIdColumn(field) : columnOf(field);
  const bool nullable = !isNotNull(field);
  if (isTextKind(field.kind)) {
    return nullable ? "coalesce(lower(" + column + "), '')" : "lower(" + column + ")";
  }
  if (!nullable) return column;
  if (field.kind == FieldKind::Date || field.kind == FieldKind::Reference ||
      field.kind == FieldKind::Related) {
    return "coalesce(" + column + ", '')";
  }
  // Integer, Money and DateTime (booleans that sort are never null)
  return "coalesce(" + column + ", -1)";
}

Resource::Resource(ResourceSpec spec) {
  checkSpec(spec);
  spec_ = std::make_shared<const ResourceSpec>(std::move(spec));
  query_ = std::make_shared<const RecordQuery>(querySchemaOf(*spec_));
}

const ResourceSpec& Resource::spec() const {
  return *spec_;
}

const RecordQuery& Resource::query() const {
  return *query_;
}

}  // namespace rapport
