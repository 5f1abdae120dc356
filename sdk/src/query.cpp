// The shared building blocks of record modules: lists, search, tags and the
// request rules they repeat (see rapport/query.h for the conventions).
#include "rapport/query.h"

#include "rapport/json.h"

namespace rapport {

WhereClause::WhereClause(Dialect dialect, std::string tenant)
    : dialect_(dialect), tenant_(std::move(tenant)), params_{tenant_} {}

void WhereClause::add(std::string_view condition, std::initializer_list<Value> values) {
  conditions_ += " AND ";
  conditions_ += condition;
  params_.insert(params_.end(), values);
}

void WhereClause::addNarrowing(std::string_view condition, std::initializer_list<Value> values) {
  add(condition, values);
  narrowed_ = true;
}

std::string WhereClause::sql() const {
  const bool hideTenantIndex = narrowed_ && dialect_ == Dialect::SQLite;
  return (hideTenantIndex ? "+company_id = ?" : "company_id = ?") + conditions_;
}

ListPage selectPage(Queryable& db, std::string_view columns, std::string_view table,
                    const WhereClause& where, const Sort& sort, const PageRequest& page,
                    std::string_view countsTable) {
  const std::string from = std::string(table) + " WHERE " + where.sql();
  Params pageParams = where.params();
  pageParams.insert(pageParams.end(), {page.perPage, page.offset()});
  ListPage out;
  out.rows = db.query("SELECT " + std::string(columns) + " FROM " + from + " " +
                          orderByClause(sort) + " LIMIT ? OFFSET ?",
                      pageParams);
  if (!countsTable.empty() && !where.filtered()) {
    const Result counted =
        db.query("SELECT total FROM " + std::string(countsTable) + " WHERE company_id = ?",
                 {where.tenant()});
    out.total = counted.empty() ? 0 : counted.front().i64("total");
  } else {
    out.total =
        db.query("SELECT COUNT(*) AS total FROM " + from, where.params()).front().i64("total");
  }
  return out;
}

std::string likeContains(std::string_view term) {
  std::string out = "%";
  for (char c : term) {
    if (c == '%' || c == '_' || c == '\\') out += '\\';
    out += c;
  }
  return out + "%";
}

std::string ftsPhrase(std::string_view term) {
  std::string out = "\"";
  for (char c : term) {
    out += c;
    if (c == '"') out += '"';
  }
  return out + "\"";
}

void addTextSearch(WhereClause& where, std::string_view ftsTable, std::string_view term) {
  if (where.dialect() == Dialect::SQLite && utf8Length(term) >= kTrigramLength) {
    const std::string table(ftsTable);
    where.addNarrowing("seq IN (SELECT rowid FROM " + table + " WHERE " + table + " MATCH ?)",
                       {ftsPhrase(term)});
  } else {
    where.add("search_text LIKE lower(?) ESCAPE '\\'", {likeContains(term)});
  }
}

std::string tagsToJsonText(const std::vector<std::string>& tags) {
  Json array = Json::array();
  for (const std::string& tag : tags) array.push(tag);
  return array.dump();
}

std::vector<std::string> tagsFromJsonText(std::string_view text) {
  const Json array = Json::parse(text);  // named: it must outlive the loop
  std::vector<std::string> tags;
  for (const Json& tag : array.asArray()) tags.push_back(tag.asString());
  return tags;
}

void replaceTagRows(Tx& tx, const TagTable& tagTable, std::string_view recordId,
                    const std::vector<std::string>& tags) {
  deleteTagRows(tx, tagTable, recordId);
  const std::string insert = "INSERT INTO " + std::string(tagTable.table) + " (company_id, " +
                             std::string(tagTable.recordColumn) + ", tag_lower) VALUES (?, ?, ?)";
  for (const std::string& tag : tags) tx.exec(insert, {tx.companyId(), recordId, toLower(tag)});
}

void deleteTagRows(Tx& tx, const TagTable& tagTable, std::string_view recordId) {
  tx.exec("DELETE FROM " + std::string(tagTable.table) + " WHERE company_id = ? AND " +
              std::string(tagTable.recordColumn) + " = ?",
          {tx.companyId(), recordId});
}

void addTagFilter(WhereClause& where, const TagTable& tagTable, std::string_view tag) {
  where.addNarrowing("id IN (SELECT " + std::string(tagTable.recordColumn) + " FROM " +
                         std::string(tagTable.table) + " WHERE company_id = ? AND tag_lower = ?)",
                     {where.tenant(), toLower(tag)});
}

std::optional<std::string> filterParam(const Request& request, std::string_view name) {
  const auto text = request.queryParam(name);
  if (!text) return std::nullopt;
  std::string trimmed = trim(*text);
  if (trimmed.empty()) return std::nullopt;
  return trimmed;
}

std::optional<std::string> searchParam(const Request& request, FieldErrors& errors) {
  auto term = filterParam(request, "search");
  if (term && utf8Length(*term) > kMaxSearchLength) {
    errors["search"].push_back("The search may not be greater than " +
                               std::to_string(kMaxSearchLength) + " characters.");
  }
  return term;
}

Field<std::string> optionalText(Validator& validator, const std::string& field, std::size_t max) {
  Field<std::string> out = validator.string(field, {.required = false, .min = 0, .max = max});
  if (out.value && out.value->empty()) out.value.reset();
  return out;
}

void conflictOnDuplicate(const std::string& message, const std::function<void()>& write) {
  try {
    write();
  } catch (const DbError& error) {
    if (error.isUniqueViolation()) throw Error::conflict(message);
    throw;
  }
}

}  // namespace rapport
