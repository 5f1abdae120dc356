#include "accounts/MemberStore.h"

#include "rapport/time.h"

namespace rapport::host::accounts::members {

namespace {

constexpr std::string_view kSelect =
    "SELECT m.user_id, u.name, u.email, m.role, m.created_at FROM memberships m "
    "JOIN users u ON u.id = m.user_id WHERE m.company_id = ?";

MemberRecord fromRow(const Row& row) {
  MemberRecord member;
  member.userId = row.str("user_id");
  member.name = row.str("name");
  member.email = row.str("email");
  // The CHECK constraint admits only the three names parseRole knows.
  member.role = rapport::parseRole(row.str("role")).value_or(Role::Member);
  member.joinedAt = row.i64("created_at");
  return member;
}

std::string orderBy(const rapport::Sort& sort) {
  const char* direction = sort.descending ? " DESC" : " ASC";
  return " ORDER BY " + sort.column + direction + ", m.user_id" + direction;
}

}  // namespace

const std::map<std::string, std::string>& sortColumns() {
  // Names compare case-insensitively so both engines agree on the order.
  static const std::map<std::string, std::string> columns = {
      {"joined_at", "m.created_at"}, {"name", "LOWER(u.name)"}, {"email", "u.email_lower"}};
  return columns;
}

rapport::Sort defaultSort() {
  return {"m.created_at", false};
}

std::vector<MemberRecord> list(Queryable& db, const std::string& companyId,
                               const rapport::Sort& sort, std::int64_t limit, std::int64_t offset) {
  const Result result = db.query(std::string(kSelect) + orderBy(sort) + " LIMIT ? OFFSET ?",
                                 {companyId, limit, offset});
  std::vector<MemberRecord> out;
  out.reserve(result.size());
  for (const Row& row : result) out.push_back(fromRow(row));
  return out;
}

std::optional<MemberRecord> find(Queryable& db, const std::string& companyId,
                                 const std::string& userId) {
  const Result result = db.query(std::string(kSelect) + " AND m.user_id = ?", {companyId, userId});
  if (result.empty()) return std::nullopt;
  return fromRow(result.front());
}

std::int64_t ownerCount(Queryable& db, const std::string& companyId) {
  return db
      .query("SELECT COUNT(*) AS n FROM memberships WHERE company_id = ? AND role = ?",
             {companyId, rapport::roleName(Role::Owner)})
      .front()
      .i64("n");
}

void updateRole(Queryable& db, const std::string& companyId, const std::string& userId, Role role) {
  db.exec("UPDATE memberships SET role = ? WHERE company_id = ? AND user_id = ?",
          {rapport::roleName(role), companyId, userId});
}

void remove(Queryable& db, const std::string& companyId, const std::string& userId) {
  db.exec("DELETE FROM memberships WHERE company_id = ? AND user_id = ?", {companyId, userId});
}

void lockCompany(Tx& tx, const std::string& companyId) {
  if (tx.dialect() != rapport::Dialect::PostgreSQL) return;
  tx.query("SELECT id FROM companies WHERE id = ? FOR UPDATE", {companyId});
}

Json memberJson(const MemberRecord& member) {
  return Json::object({{"user_id", member.userId},
                       {"name", member.name},
                       {"email", member.email},
                       {"role", std::string(rapport::roleName(member.role))},
                       {"joined_at", rapport::isoTimestamp(member.joinedAt)}});
}

}  // namespace rapport::host::accounts::members
