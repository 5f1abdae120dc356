// The filter language of decisions §13 compiled to SQL: each key looked up
// in the declaration, each operator in its kind's table, each value read by
// the kind and bound. Nothing a client sends is pasted into SQL.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "../search_sql.h"
#include "compiled.h"
#include "rapport/error.h"
#include "rapport/search.h"
#include "rapport/time.h"
#include "rapport/validation.h"

namespace rapport::query {
namespace {

enum class Op { Eq, Ne, Gt, Gte, Lt, Lte, In, Nin, Contains, StartsWith, Null };

const std::map<std::string, Op>& operators() {
  static const std::map<std::string, Op> table = {{"eq", Op::Eq},
                                                  {"ne", Op::Ne},
                                                  {"gt", Op::Gt},
                                                  {"gte", Op::Gte},
                                                  {"lt", Op::Lt},
                                                  {"lte", Op::Lte},
                                                  {"in", Op::In},
                                                  {"nin", Op::Nin},
                                                  {"contains", Op::Contains},
                                                  {"starts_with", Op::StartsWith},
                                                  {"null", Op::Null}};
  return table;
}

// The operators each kind takes: the type check of a condition.
bool fits(QueryKind kind, Op op) {
  switch (kind) {
    case QueryKind::Text:
      return true;
    case QueryKind::Id:
    case QueryKind::Enum:
      return op == Op::Eq || op == Op::Ne || op == Op::In || op == Op::Nin || op == Op::Null;
    case QueryKind::Number:
    case QueryKind::Decimal:
    case QueryKind::Date:
    case QueryKind::DateTime:
      return op != Op::Contains && op != Op::StartsWith;
    case QueryKind::Boolean:
      return op == Op::Eq || op == Op::Ne || op == Op::Null;
    case QueryKind::Tags:
      return op == Op::Contains || op == Op::Null;
  }
  return false;
}

bool caseInsensitive(QueryKind kind, Op op) {
  return kind == QueryKind::Text &&
         (op == Op::Gt || op == Op::Gte || op == Op::Lt || op == Op::Lte);
}

bool isPlainColumn(const std::string& column) {
  return !column.empty() && std::all_of(column.begin(), column.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

[[noreturn]] void refuse(const std::string& path, const std::string& message) {
  throw Error::invalidField(path, message);
}

// Condition::indexable and subject of the and (`all` false) or the or of
// `parts`: an and may use an index when one of its parts may, an or only
// when each branch may (PostgreSQL's BitmapOr); the subject is the one that
// those parts all compare, if they compare one.
void joinIndexing(Condition& out, const std::vector<Condition>& parts, bool isOr) {
  out.indexable = isOr;
  bool first = true, same = true;
  for (const Condition& part : parts) {
    out.indexable = isOr ? out.indexable && part.indexable : out.indexable || part.indexable;
    if (!isOr && !part.indexable) continue;
    if (first) out.subject = part.subject;
    same = same && part.subject == out.subject;
    first = false;
  }
  if (!same || parts.empty()) out.subject.clear();
}

// The compiler's walk: the limits it counts and where values go.
class Compiler {
 public:
  Compiler(Dialect dialect, const std::string& tenant, const RecordQuery::SchemaLookup& schemaOf,
           Queryable* counts)
      : dialect_(dialect), tenant_(tenant), schemaOf_(schemaOf), counts_(counts) {}

  // A filter object: the AND of its members. Top level (depth 1): each
  // member is a condition of its own.
  std::vector<Condition> members(const Compiled& self, const Json& object, const std::string& path,
                                 int depth) {
    if (!object.isObject()) refuse(path, "The " + path + " must be an object.");
    if (depth > kMaxDepth) {
      refuse("filter", "The filter may nest at most " + std::to_string(kMaxDepth) + " levels.");
    }
    // Inside and, or and not a filter must hold a condition: empty ones
    // would escape the limit of 50 conditions while each still adds SQL (an
    // or of 1,200 {} is deeper than SQLite's expression limit).
    if (depth > 1 && object.asObject().empty()) {
      refuse(path, "The " + path + " must hold at least one condition.");
    }
    std::vector<Condition> out;
    for (const auto& [key, value] : object.asObject()) {
      const std::string at = path + "." + key;
      if (key == "and" || key == "or") {
        out.push_back(combination(self, value, at, depth, key == "and" ? " AND " : " OR "));
      } else if (key == "not") {
        Condition inner = conjunction(members(self, value, at, depth + 1));
        out.push_back({"NOT COALESCE(" + inner.sql + ", FALSE)", std::move(inner.params)});
        out.back().indexable = false;  // no index serves a negation
      } else {
        for (Condition& c : field(self, key, value, at)) out.push_back(std::move(c));
      }
    }
    return out;
  }

 private:
  Dialect dialect_;
  const std::string& tenant_;
  const RecordQuery::SchemaLookup& schemaOf_;
  // Where `contains` reads trigram counts (nullptr: the whole term).
  Queryable* counts_;
  int conditions_ = 0;

  static Condition conjunction(std::vector<Condition> parts) {
    if (parts.empty()) return {"1 = 1", {}, false, "", "", false};
    Condition out{"(", {}};
    joinIndexing(out, parts, false);
    for (std::size_t i = 0; i < parts.size(); ++i) {
      out.sql += (i ? " AND " : "") + parts[i].sql;
      out.params.insert(out.params.end(), parts[i].params.begin(), parts[i].params.end());
    }
    out.sql += ")";
    return out;
  }

  Condition combination(const Compiled& self, const Json& value, const std::string& path, int depth,
                        const char* joiner) {
    if (!value.isArray() || value.asArray().empty()) {
      refuse(path, "The " + path + " must be a non-empty array of filters.");
    }
    Condition out{"(", {}};
    const Json::Array& items = value.asArray();
    std::vector<Condition> parts;
    for (std::size_t i = 0; i < items.size(); ++i) {
      parts.push_back(
          conjunction(members(self, items[i], path + "." + std::to_string(i), depth + 1)));
      out.sql += (i ? joiner : "") + parts.back().sql;
      out.params.insert(out.params.end(), parts.back().params.begin(), parts.back().params.end());
    }
    out.sql += ")";
    joinIndexing(out, parts, std::string(joiner) == " OR ");
    return out;
  }

  // One key: a field of the record, or a hop through a reference.
  std::vector<Condition> field(const Compiled& self, const std::string& key, const Json& value,
                               const std::string& path) {
    if (auto it = self.byName.find(key); it != self.byName.end()) {
      if (!it->second->sideTable.empty()) return onSideTable(self, *it->second, value, path);
      return operations(self, *it->second, value, path);
    }
    const auto dot = key.find('.');
    if (dot != std::string::npos) {
      const auto hop = self.byHop.find(key.substr(0, dot));
      if (hop != self.byHop.end()) {
        return throughReference(*hop->second, key.substr(dot + 1), value, path);
      }
    }
    refuse(path, "The field " + key + " cannot be filtered on.");
  }

  // "company.industry": the condition on the target's own declaration, as
  // a semi-join on the reference column (the target's rows of this tenant).
  std::vector<Condition> throughReference(const QueryField& reference, const std::string& rest,
                                          const Json& value, const std::string& path) {
    const RecordQuery* targetQuery = schemaOf_ ? schemaOf_(reference.reference) : nullptr;
    const Compiled* target = targetQuery ? &Access::of(*targetQuery) : nullptr;
    if (!target || !target->byName.contains(rest)) {
      refuse(path, "The field " + reference.hop + "." + rest + " cannot be filtered on.");
    }
    std::vector<Condition> out;
    for (Condition& inner : operations(*target, *target->byName.at(rest), value, path)) {
      Condition c{reference.column + " IN (SELECT id FROM " + target->schema.table +
                      " WHERE company_id = ? AND " + inner.sql + ")",
                  {tenant_}};
      c.params.insert(c.params.end(), inner.params.begin(), inner.params.end());
      out.push_back(std::move(c));
    }
    return out;
  }

  // A field whose values live in a side table (QueryField::sideTable): each
  // operator as a semi-join on the rows of the records that have a value;
  // ne, nin and null: true as the NOT IN of their opposite, so a record
  // without a value matches them.
  std::vector<Condition> onSideTable(const Compiled& self, const QueryField& f, const Json& value,
                                     const std::string& path) {
    QueryField inner = f;
    inner.sideTable.clear();
    inner.nullable = false;
    std::vector<Condition> out;
    for (const auto& [op, json, at] : requested(f, value, path)) {
      // Text values are stored lower-cased: every comparison is in any case;
      // booleans as 0 and 1.
      Json folded = f.kind == QueryKind::Text ? lowered(json) : json;
      QueryField typed = inner;
      if (f.kind == QueryKind::Boolean && json.isBool()) {
        folded = Json(json.asBool() ? 1 : 0);
        typed.kind = QueryKind::Number;
      }
      Condition rows;
      bool negated = false;
      if (op == Op::Null) {
        if (!json.isBool()) refuse(at, "The " + at + " must be true or false.");
        count();
        // Every row of the field has its column set: the partial index serves it.
        rows = {f.column + " IS NOT NULL", {}};
        negated = json.asBool();
      } else if (f.kind == QueryKind::Tags) {  // contains: holds the option
        count();
        rows = {f.column + " = ?", {Value(text(json, at))}};
      } else if (op == Op::Ne || op == Op::Nin) {
        rows = operation(self, typed, op == Op::Ne ? Op::Eq : Op::In, folded, at);
        negated = true;
      } else {
        rows = operation(self, typed, op, folded, at);
      }
      // The side key names a field of this tenant: its rows are the tenant's.
      Condition c{std::string("id ") + (negated ? "NOT IN" : "IN") + " (SELECT record_id FROM " +
                      f.sideTable + " WHERE " + f.sideKey + " AND " + rows.sql + ")",
                  rows.params};
      // PostgreSQL walks the order's index and probes each record's row by
      // itself; marked narrowing, a numbered page would count every match
      // in its page's statement (list.h).
      c.narrowing = !negated && dialect_ == Dialect::SQLite;
      c.indexable = !negated;
      if (!negated) {
        c.sideField = &f;
        c.sideSql = rows.sql;
        c.sideParams = rows.params;
      }
      if (!negated && dialect_ == Dialect::SQLite) {
        // SQLite would read every match from the side table and sort them;
        // when they are many, walking the order's index and probing each
        // record's row stops after the page (Condition::walkingSql; the
        // same values in the same order).
        // The field and the value hidden from the planner (+(...)): the
        // record's own rows (its index leads with record_id) must serve
        // the probe, not a value index holding every match.
        c.walkingSql = "EXISTS (SELECT 1 FROM " + f.sideTable +
                       " WHERE record_id = " + self.schema.table + ".id AND +(" + f.sideKey +
                       ") AND +(" + rows.sql + "))";
        c.rangeColumn = f.sortExpression;
      }
      out.push_back(std::move(c));
    }
    return out;
  }

  static Json lowered(const Json& value) {
    if (value.isString()) return Json(toLower(value.asString()));
    if (!value.isArray()) return value;
    Json::Array out;
    for (const Json& item : value.asArray()) out.push_back(lowered(item));
    return Json(std::move(out));
  }

  // A field's value: a literal (equality, null: unset) or an object of operators.
  // One operator of a field's value, with its operand and its path.
  struct Requested {
    Op op;
    Json operand;
    std::string path;
  };

  // A field's value: a literal (equality, null: unset) or an object of
  // operators, each checked against the field's kind.
  static std::vector<Requested> requested(const QueryField& f, const Json& value,
                                          const std::string& path) {
    if (!value.isObject()) {
      // A literal is equality (null: unset), checked against the kind like eq.
      const Op op = value.isNull() ? Op::Null : Op::Eq;
      if (!fits(f.kind, op)) {
        refuse(path, "The field " + f.name + " cannot be compared with a value; use an operator.");
      }
      return {{op, value.isNull() ? Json(true) : value, path}};
    }
    if (value.asObject().empty()) refuse(path, "The " + path + " names no operator.");
    std::vector<Requested> out;
    for (const auto& [name, operand] : value.asObject()) {
      const std::string at = path + "." + name;
      const auto op = operators().find(name);
      if (op == operators().end()) refuse(at, "The operator " + name + " is not supported.");
      if (!fits(f.kind, op->second)) {
        refuse(at, "The operator " + name + " does not apply to the field " + f.name + ".");
      }
      out.push_back({op->second, operand, at});
    }
    return out;
  }

  std::vector<Condition> operations(const Compiled& self, const QueryField& f, const Json& value,
                                    const std::string& path) {
    std::vector<Condition> out;
    for (const Requested& r : requested(f, value, path)) {
      out.push_back(operation(self, f, r.op, r.operand, r.path));
    }
    return out;
  }

  // Counts one more condition against the limit of decisions §13.
  void count() {
    if (++conditions_ > kMaxConditions) {
      refuse("filter",
             "The filter may hold at most " + std::to_string(kMaxConditions) + " conditions.");
    }
  }

  Condition operation(const Compiled& self, const QueryField& f, Op op, const Json& operand,
                      const std::string& path) {
    count();
    switch (op) {
      case Op::Null:
        return nullTest(f, operand, path);
      case Op::In:
      case Op::Nin:
        return membership(f, op == Op::Nin, operand, path);
      case Op::Contains:
        return f.kind == QueryKind::Tags ? holdsTag(self, operand, path)
                                         : containsText(self, f, operand, path);
      case Op::StartsWith:
        return {"lower(" + f.column + ") LIKE ? ESCAPE '\\'",
                {prefixPattern(toLower(text(operand, path)))}};
      default:
        return comparison(f, op, operand, path);
    }
  }

  Condition nullTest(const QueryField& f, const Json& operand, const std::string& path) {
    if (!operand.isBool()) refuse(path, "The " + path + " must be true or false.");
    const bool unset = operand.asBool();
    Condition c{f.column + (unset ? " IS NULL" : " IS NOT NULL"), {}};
    if (f.kind == QueryKind::Tags) c.sql = f.column + (unset ? " = '[]'" : " <> '[]'");
    c.indexable = unset;
    c.subject = f.column;
    return c;
  }

  Condition comparison(const QueryField& f, Op op, const Json& operand, const std::string& path) {
    static const std::map<Op, const char*> sql = {{Op::Eq, " = ?"}, {Op::Ne, " <> ?"},
                                                  {Op::Gt, " > ?"}, {Op::Gte, " >= ?"},
                                                  {Op::Lt, " < ?"}, {Op::Lte, " <= ?"}};
    Value bound = valueOf(f, operand, path);
    std::string column = f.column;
    if (caseInsensitive(f.kind, op)) {
      column = "lower(" + f.column + ")";
      bound = Value(toLower(std::get<std::string>(bound.variant())));
    }
    Condition c{column + sql.at(op), {std::move(bound)}};
    c.indexable = op != Op::Ne;
    c.subject = column;
    // "ne": a record whose field is unset does not hold the value either.
    if (op == Op::Ne && f.nullable) c.sql = "(" + f.column + " IS NULL OR " + c.sql + ")";
    const bool range = op == Op::Gt || op == Op::Gte || op == Op::Lt || op == Op::Lte;
    // Only a column sorted by itself: by the convention of record tables
    // (docs/modules.md, "Indexes") it then has an index of its own, which
    // the density probe reads; a range on another column is not SQLite's
    // choice of index and needs no walking form.
    if (dialect_ == Dialect::SQLite && range && column == f.column && isPlainColumn(f.column) &&
        sortExpressionOf(f) == f.column) {
      c.walkingSql = "+" + f.column + sql.at(op);
      c.rangeColumn = f.column;
    }
    return c;
  }

  Condition membership(const QueryField& f, bool negated, const Json& operand,
                       const std::string& path) {
    if (!operand.isArray()) refuse(path, "The " + path + " must be an array.");
    const Json::Array& items = operand.asArray();
    if (items.size() > kMaxInValues) {
      refuse(path,
             "The " + path + " may hold at most " + std::to_string(kMaxInValues) + " values.");
    }
    if (items.empty()) return {negated ? "1 = 1" : "1 = 0", {}, false, "", "", false};
    Condition c{f.column + (negated ? " NOT IN (" : " IN ("), {}};
    c.indexable = !negated;
    c.subject = f.column;
    for (std::size_t i = 0; i < items.size(); ++i) {
      c.sql += i ? ", ?" : "?";
      c.params.push_back(valueOf(f, items[i], path + "." + std::to_string(i)));
    }
    c.sql += ")";
    if (negated && f.nullable) c.sql = "(" + f.column + " IS NULL OR " + c.sql + ")";
    return c;
  }

  // A case-insensitive substring. A searchable field first narrows on the
  // table's search index (search.h: trigrams, so terms of 3 characters or
  // more), then checks the field itself; otherwise the field is scanned.
  Condition containsText(const Compiled& self, const QueryField& f, const Json& operand,
                         const std::string& path) {
    const std::string term = toLower(text(operand, path));
    Condition check{"lower(" + f.column + ") LIKE ? ESCAPE '\\'", {likeContains(term)}};
    const bool indexed = f.searchable && utf8Length(term) >= kTrigramLength &&
                         (dialect_ == Dialect::PostgreSQL || !self.schema.searchTable.empty());
    if (!indexed) return check;
    // The index's answer (the term's rarest trigrams when counts_ can say
    // which: search_sql.h), then the field itself.
    const detail::IndexedTerm found =
        detail::indexedTerm(counts_, dialect_, self.schema.table, self.schema.searchTable, term);
    Condition c{"(" + found.sql + " AND " + check.sql + ")", found.params};
    c.params.push_back(check.params.front());
    c.narrowing = true;
    return c;
  }

  Condition holdsTag(const Compiled& self, const Json& operand, const std::string& path) {
    const std::string tag = toLower(trim(text(operand, path)));
    if (tag.empty()) refuse(path, "The " + path + " must name a tag.");
    return {"id IN (SELECT " + self.schema.tagRecordColumn + " FROM " + self.schema.tagTable +
                " WHERE company_id = ? AND tag_lower = ?)",
            {tenant_, tag},
            true};
  }

  // The operand as the field's kind reads it, or a 422 on `path`.
  Value valueOf(const QueryField& f, const Json& operand, const std::string& path) const {
    switch (f.kind) {
      case QueryKind::Text:
      case QueryKind::Id:
        return Value(text(operand, path));
      case QueryKind::Enum: {
        const std::string value = text(operand, path);
        if (std::find(f.options.begin(), f.options.end(), value) == f.options.end()) {
          refuse(path, "The " + path + " must be one of: " + joined(f.options) + ".");
        }
        return Value(value);
      }
      case QueryKind::Number:
        if (!operand.isInt()) refuse(path, "The " + path + " must be an integer.");
        return Value(static_cast<long long>(operand.asInt()));
      case QueryKind::Decimal: {
        if (!operand.isNumber() || std::fabs(operand.asDouble()) >= 1e12) {
          refuse(path, "The " + path + " must be a number.");
        }
        return Value(static_cast<long long>(std::llround(operand.asDouble() * 1'000'000.0)));
      }
      case QueryKind::Boolean:
        if (!operand.isBool()) refuse(path, "The " + path + " must be true or false.");
        return Value(operand.asBool());
      case QueryKind::Date: {
        const std::string value = text(operand, path);
        if (!isValidDate(value)) refuse(path, "The " + path + " must be a date (YYYY-MM-DD).");
        return Value(value);
      }
      case QueryKind::DateTime: {
        const auto micros = operand.isString() ? parseIsoTimestamp(operand.asString())
                                               : std::optional<std::int64_t>();
        if (!micros) refuse(path, "The " + path + " must be an ISO-8601 date-time.");
        return Value(static_cast<long long>(*micros));
      }
      case QueryKind::Tags:
        return Value(text(operand, path));
    }
    refuse(path, "The " + path + " is not valid.");
  }

  static std::string text(const Json& operand, const std::string& path) {
    if (!operand.isString()) refuse(path, "The " + path + " must be a string.");
    if (operand.asString().size() > kMaxFilterText || !isValidUtf8(operand.asString())) {
      refuse(path, "The " + path + " must be text of at most " + std::to_string(kMaxFilterText) +
                       " bytes.");
    }
    return operand.asString();
  }

  static std::string prefixPattern(const std::string& prefix) {
    std::string pattern = likeContains(prefix);
    return pattern.substr(1);  // "%x%" -> "x%"
  }

  static std::string joined(const std::vector<std::string>& values) {
    std::string out;
    for (const std::string& v : values) out += (out.empty() ? "" : ", ") + v;
    return out;
  }
};

}  // namespace

std::vector<Condition> compileFilter(const Compiled& self, const Json& filter, Dialect dialect,
                                     const std::string& tenant,
                                     const RecordQuery::SchemaLookup& schemaOf, Queryable* counts) {
  if (filter.isNull()) return {};
  Compiler compiler(dialect, tenant, schemaOf, counts);
  return compiler.members(self, filter, "filter", 1);
}

bool onePlanFits(const std::vector<Condition>& conditions, const Sort& sort) {
  return std::all_of(conditions.begin(), conditions.end(), [&](const Condition& c) {
    return !c.indexable || (!c.subject.empty() && c.subject == sort.column);
  });
}

}  // namespace rapport::query
