// SQL for tenant companies and memberships (decisions §2). Functions take
// the Queryable to run on, so they work inside or outside a transaction.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rapport/db.h"
#include "rapport/roles.h"

namespace rapport::host::accounts {

struct CompanyRecord {
  std::string id;
  std::string name;
  std::int64_t createdAt = 0;
};

// A company as one of its members sees it.
struct MemberCompany {
  CompanyRecord company;
  Role role = Role::Member;
};

namespace companies {

void insert(Queryable& db, const CompanyRecord& company);
void addMember(Queryable& db, const std::string& companyId, const std::string& userId, Role role,
               std::int64_t at);
// Creates a company owned by `userId` (register, POST /user/companies).
CompanyRecord createOwned(Queryable& db, const std::string& name, const std::string& userId,
                          std::int64_t at);

std::optional<CompanyRecord> find(Queryable& db, const std::string& companyId);
std::optional<Role> roleOf(Queryable& db, const std::string& companyId, const std::string& userId);
bool isMember(Queryable& db, const std::string& companyId, const std::string& userId);
// The company a login lands in: the user's oldest membership.
std::optional<std::string> firstCompanyOf(Queryable& db, const std::string& userId);

// The user's companies, newest membership first, one page.
std::vector<MemberCompany> listFor(Queryable& db, const std::string& userId, std::int64_t limit,
                                   std::int64_t offset);
std::int64_t countFor(Queryable& db, const std::string& userId);
std::int64_t memberCount(Queryable& db, const std::string& companyId);

}  // namespace companies
}  // namespace rapport::host::accounts
