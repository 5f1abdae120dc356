#include "accounts/CompanyStore.h"

#include "rapport/ids.h"

namespace rapport::host::accounts::companies {

namespace {

Role roleFrom(const Row& row) {
  // The CHECK constraint admits only the three names parseRole knows.
  return rapport::parseRole(row.str("role")).value_or(Role::Member);
}

// A company as one of its members sees it: the membership joined with its
// company. Callers append the WHERE clause.
constexpr std::string_view kMemberCompanySelect =
    "SELECT c.id, c.name, c.created_at, m.role, m.created_at AS joined_at FROM memberships m "
    "JOIN companies c ON c.id = m.company_id ";

// A row of kMemberCompanySelect.
MemberCompany memberCompanyFrom(const Row& row) {
  return {
      {row.str("id"), row.str("name"), row.i64("created_at")}, roleFrom(row), row.i64("joined_at")};
}

}  // namespace

void insert(Queryable& db, const CompanyRecord& company) {
  db.exec("INSERT INTO companies (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)",
          {company.id, company.name, company.createdAt, company.createdAt});
}

void addMember(Queryable& db, const std::string& companyId, const std::string& userId, Role role,
               std::int64_t at) {
  db.exec("INSERT INTO memberships (company_id, user_id, role, created_at) VALUES (?, ?, ?, ?)",
          {companyId, userId, rapport::roleName(role), at});
}

CompanyRecord createOwned(Queryable& db, const std::string& name, const std::string& userId,
                          std::int64_t at) {
  CompanyRecord company{rapport::newId("comp_"), name, at};
  insert(db, company);
  addMember(db, company.id, userId, Role::Owner, at);
  return company;
}

std::optional<CompanyRecord> find(Queryable& db, const std::string& companyId) {
  const Result result =
      db.query("SELECT id, name, created_at FROM companies WHERE id = ?", {companyId});
  if (result.empty()) return std::nullopt;
  const Row& row = result.front();
  return CompanyRecord{row.str("id"), row.str("name"), row.i64("created_at")};
}

std::optional<Role> roleOf(Queryable& db, const std::string& companyId, const std::string& userId) {
  const Result result = db.query(
      "SELECT role FROM memberships WHERE company_id = ? AND user_id = ?", {companyId, userId});
  if (result.empty()) return std::nullopt;
  return roleFrom(result.front());
}

bool isMember(Queryable& db, const std::string& companyId, const std::string& userId,
              rapport::RecordLock lock) {
  const std::string sql = "SELECT 1 FROM memberships WHERE company_id = ? AND user_id = ?" +
                          std::string(rapport::lockClause(db.dialect(), lock));
  return !db.query(sql, {companyId, userId}).empty();
}

std::optional<MemberCompany> findFor(Queryable& db, const std::string& companyId,
                                     const std::string& userId) {
  const Result result =
      db.query(std::string(kMemberCompanySelect) + "WHERE m.company_id = ? AND m.user_id = ?",
               {companyId, userId});
  if (result.empty()) return std::nullopt;
  return memberCompanyFrom(result.front());
}

std::optional<std::string> firstCompanyOf(Queryable& db, const std::string& userId) {
  const Result result = db.query(
      "SELECT company_id FROM memberships WHERE user_id = ? "
      "ORDER BY created_at ASC, company_id ASC LIMIT 1",
      {userId});
  if (result.empty()) return std::nullopt;
  return result.front().str("company_id");
}

const std::map<std::string, std::string>& listSortColumns() {
  // Names compare case-insensitively so both engines agree on the order.
  static const std::map<std::string, std::string> columns = {
      {"name", "LOWER(c.name)"}, {"created_at", "c.created_at"}, {"joined_at", "m.created_at"}};
  return columns;
}

rapport::Sort defaultListSort() {
  return {"m.created_at", true};
}

std::vector<MemberCompany> listFor(Queryable& db, const std::string& userId,
                                   const rapport::Sort& sort, std::int64_t limit,
                                   std::int64_t offset) {
  const char* direction = sort.descending ? " DESC" : " ASC";
  const Result result =
      db.query(std::string(kMemberCompanySelect) + "WHERE m.user_id = ? ORDER BY " + sort.column +
                   direction + ", c.id" + direction + " LIMIT ? OFFSET ?",
               {userId, limit, offset});
  std::vector<MemberCompany> out;
  out.reserve(result.size());
  for (const Row& row : result) out.push_back(memberCompanyFrom(row));
  return out;
}

std::int64_t countFor(Queryable& db, const std::string& userId) {
  return db.query("SELECT COUNT(*) AS n FROM memberships WHERE user_id = ?", {userId})
      .front()
      .i64("n");
}

std::int64_t memberCount(Queryable& db, const std::string& companyId) {
  return db.query("SELECT COUNT(*) AS n FROM memberships WHERE company_id = ?", {companyId})
      .front()
      .i64("n");
}

}  // namespace rapport::host::accounts::companies
