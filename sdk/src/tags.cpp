// Tags and the tag filter (rapport/tags.h).
#include "rapport/tags.h"

#include <algorithm>
#include <string>

#include "rapport/json.h"
#include "rapport/validation.h"
#include "tags_sql.h"
#include "where_sql.h"

namespace rapport {

using detail::tenantFilterOnly;

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
  detail::insertTagRows(tx, tagTable, recordId, tags);
}

void detail::insertTagRows(Tx& tx, const TagTable& tagTable, std::string_view recordId,
                           const std::vector<std::string>& tags) {
  if (tags.empty()) return;
  // In one order everywhere: the rows' triggers lock the tenant's count row
  // of each tag, and two writers taking them in opposite orders would
  // deadlock on PostgreSQL.
  std::vector<std::string> lowered;
  lowered.reserve(tags.size());
  for (const std::string& tag : tags) lowered.push_back(toLower(tag));
  std::sort(lowered.begin(), lowered.end());
  // One statement for all the tags (a round trip per tag cost a fifth of a
  // contact create on PostgreSQL), inserted in that order (ORDER BY).
  std::string values;
  Params params;
  for (const std::string& tag : lowered) {
    values += values.empty() ? "SELECT ? AS tag" : " UNION ALL SELECT ?";
    params.emplace_back(tag);
  }
  params.emplace_back(tx.companyId());
  params.emplace_back(std::string(recordId));
  tx.exec("INSERT INTO " + std::string(tagTable.table) + " (company_id, " +
              std::string(tagTable.recordColumn) +
              ", tag_lower, created_at) SELECT r.company_id, r.id, t.tag, r.created_at FROM " +
              std::string(tagTable.recordTable) + " r, (" + values +
              ") t WHERE r.company_id = ? AND r.id = ? ORDER BY t.tag",
          params);
}

void deleteTagRows(Tx& tx, const TagTable& tagTable, std::string_view recordId) {
  // The record's rows through the primary key (<recordColumn>, tag_lower).
  // Without statistics SQLite, and PostgreSQL's generic plan, would rather
  // walk the tenant's part of the tag index, all its tag rows, on every
  // write (3.4 ms per create at 100k contacts): the tenant is a filter only.
  tx.exec("DELETE FROM " + std::string(tagTable.table) + " WHERE " +
              std::string(tagTable.recordColumn) + " = ? AND " + tenantFilterOnly(tx.dialect()),
          {recordId, tx.companyId()});
}

void addTagFilter(WhereClause& where, const TagTable& tagTable, std::string_view tag) {
  where.addSetMembership({.table = std::string(tagTable.table),
                          .recordColumn = std::string(tagTable.recordColumn),
                          .key = "tag_lower = ?",
                          .keyValues = {toLower(tag)},
                          .countsTable = std::string(tagTable.countsTable)});
}

}  // namespace rapport
