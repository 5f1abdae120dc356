// A record type's declaration checked and indexed (compiled.h), and the
// sort it allows.
#include <stdexcept>

#include "compiled.h"
#include "rapport/error.h"

namespace rapport::query {
namespace {

[[noreturn]] void mistake(const RecordSchema& schema, const std::string& what) {
  throw std::invalid_argument("record query " + schema.recordType + ": " + what);
}

bool isName(const std::string& name) {
  if (name.empty() || name.front() == '.' || name.back() == '.') return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.')) return false;
  }
  return true;
}

// created_at, updated_at and id, unless the module declared them itself.
void addBuiltIns(RecordSchema& schema) {
  const auto declared = [&](const std::string& name) {
    for (const QueryField& f : schema.fields) {
      if (f.name == name) return true;
    }
    return false;
  };
  if (!declared("id")) {
    schema.fields.push_back(
        {.name = "id", .column = "id", .kind = QueryKind::Id, .nullable = false});
  }
  for (const char* name : {"created_at", "updated_at"}) {
    if (!declared(name)) {
      schema.fields.push_back(
          {.name = name, .column = name, .kind = QueryKind::DateTime, .nullable = false});
    }
  }
}

void check(const RecordSchema& schema, const QueryField& f) {
  if (!isName(f.name)) mistake(schema, "the field name '" + f.name + "' is not valid");
  if (f.column.empty()) mistake(schema, "the field " + f.name + " has no column");
  if (f.kind == QueryKind::Enum && f.options.empty()) {
    mistake(schema, "the enum field " + f.name + " has no options");
  }
  if (!f.sideTable.empty() && (f.sideKey.empty() || (f.sortable && f.kind != QueryKind::Tags &&
                                                     f.sortExpression.empty()))) {
    mistake(schema, "the side field " + f.name + " needs sideKey and sortExpression");
  }
  if (!f.reference.empty() && f.kind != QueryKind::Id) {
    mistake(schema, "the field " + f.name + " refers to a record but is not an Id");
  }
  // A side field's elements are its own rows (sideTable): no tag table.
  if (f.kind == QueryKind::Tags && f.sideTable.empty() &&
      (schema.tagTable.empty() || schema.tagRecordColumn.empty())) {
    mistake(schema, "the tags field " + f.name + " needs tagTable and tagRecordColumn");
  }
}

Sort parseSortKeys(const Compiled& self, const std::vector<std::string>& keys) {
  if (keys.size() > kMaxSortKeys) {
    throw Error::invalidField(
        "sort", "The sort may name at most " + std::to_string(kMaxSortKeys) + " fields.");
  }
  Sort sort;
  std::set<std::string> seen;
  for (const std::string& key : keys) {
    const bool descending = !key.empty() && key.front() == '-';
    const std::string name = descending ? key.substr(1) : key;
    const auto it = self.byName.find(name);
    if (it == self.byName.end() || !it->second->sortable || !seen.insert(name).second) {
      throw Error::invalidField("sort", "The sort field is not supported.");
    }
    std::vector<SortKey> fieldKeys;
    if (!it->second->sideTable.empty())
      fieldKeys.push_back({sideRankOf(self.schema, *it->second), false});
    fieldKeys.push_back({sortExpressionOf(*it->second), descending});
    for (const SortKey& k : fieldKeys) {
      if (sort.column.empty()) {
        sort.column = k.column;
        sort.descending = k.descending;
      } else {
        sort.then.push_back(k);
      }
    }
  }
  return sort;
}

}  // namespace

std::string sideRankOf(const RecordSchema& schema, const QueryField& f) {
  return "(CASE WHEN EXISTS (SELECT 1 FROM " + f.sideTable + " WHERE " + f.sideKey +
         " AND record_id = " + schema.table + ".id) THEN 0 ELSE 1 END)";
}

std::string sideSentinelOf(const QueryField& f) {
  const bool number = f.kind == QueryKind::Number || f.kind == QueryKind::Decimal ||
                      f.kind == QueryKind::DateTime || f.kind == QueryKind::Boolean;
  return number ? "-9223372036854775807" : "''";
}

std::string sortExpressionOf(const QueryField& f) {
  if (!f.sortExpression.empty()) return f.sortExpression;
  const std::string& c = f.column;
  // The smallest BIGINT PostgreSQL parses as one (its minimum would be
  // NUMERIC): unset numbers and instants sort first, ascending.
  const std::string lowest = "-9223372036854775807";
  switch (f.kind) {
    case QueryKind::Text:
      return f.nullable ? "coalesce(lower(" + c + "), '')" : "lower(" + c + ")";
    case QueryKind::Id:
    case QueryKind::Enum:
    case QueryKind::Date:
      return f.nullable ? "coalesce(" + c + ", '')" : c;
    case QueryKind::Number:
    case QueryKind::Decimal:
    case QueryKind::DateTime:
      return f.nullable ? "coalesce(" + c + ", " + lowest + ")" : c;
    case QueryKind::Boolean:
      // Both engines: SQLite stores 0/1, PostgreSQL a boolean.
      return "(CASE WHEN " + c + " IS NULL THEN 0 WHEN " + c + " THEN 2 ELSE 1 END)";
    case QueryKind::Tags:
      break;
  }
  return c;
}

std::shared_ptr<const Compiled> compile(RecordSchema schema) {
  if (schema.recordType.empty()) mistake(schema, "recordType is empty");
  if (schema.table.empty()) mistake(schema, "table is empty");
  addBuiltIns(schema);
  auto self = std::make_shared<Compiled>();
  self->schema = std::move(schema);
  RecordSchema& s = self->schema;
  for (QueryField& f : s.fields) {
    check(s, f);
    if (f.kind == QueryKind::Tags) f.sortable = false;
    if (!f.reference.empty() && f.hop.empty()) {
      f.hop = f.name.size() > 3 && f.name.ends_with("_id") ? f.name.substr(0, f.name.size() - 3)
                                                           : f.name;
    }
  }
  for (const QueryField& f : s.fields) {
    if (!self->byName.emplace(f.name, &f).second) mistake(s, "the field " + f.name + " repeats");
    if (!f.hop.empty() && !self->byHop.emplace(f.hop, &f).second) {
      mistake(s, "the reference " + f.hop + " repeats");
    }
    if (s.outputFields.empty()) self->outputs.insert(f.name.substr(0, f.name.find('.')));
    if (!f.sideTable.empty() && f.sortable) self->bySideRank.emplace(sideRankOf(s, f), &f);
  }
  for (const std::string& name : s.outputFields) self->outputs.insert(name);
  self->outputs.insert("id");
  for (const QueryInclude& include : s.includes) {
    if (!self->byName.contains(include.typeField) || !self->byName.contains(include.idField)) {
      mistake(s, "the include " + include.name + " names unknown fields");
    }
    if (self->byHop.contains(include.name) ||
        !self->polymorphic.emplace(include.name, &include).second) {
      mistake(s, "the include " + include.name + " repeats");
    }
  }
  try {
    self->defaultSort = parseSortKeys(*self, {s.defaultSort});
  } catch (const Error&) {
    mistake(s, "the default sort " + s.defaultSort + " is not a sortable field");
  }
  return self;
}

Sort sortOf(const Compiled& self, const std::vector<std::string>& keys) {
  return keys.empty() ? self.defaultSort : parseSortKeys(self, keys);
}

}  // namespace rapport::query
