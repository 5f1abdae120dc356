// SQL for tenant companies and memberships (decisions §2). Functions take
// the Queryable to run on, so they work inside or outside a transaction.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rapport/db.h"
#include "rapport/pagination.h"
#include "rapport/records.h"
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
  std::int64_t joinedAt = 0;  // when the membership was created (micros)
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
// With RecordLock::Share (an owner_id about to be written) the membership is
// key-share-locked on PostgreSQL until the transaction ends (records.h).
bool isMember(Queryable& db, const std::string& companyId, const std::string& userId,
              rapport::RecordLock lock = rapport::RecordLock::None);
// The company as the user sees it; nullopt when the user is not a member.
std::optional<MemberCompany> findFor(Queryable& db, const std::string& companyId,
                                     const std::string& userId);
// The company a login lands in: the user's oldest membership.
std::optional<std::string> firstCompanyOf(Queryable& db, const std::string& userId);

// API sort fields of the user's company list -> SQL: name, created_at (the
// company's), joined_at (the membership's). The default is newest
// membership first: a company just created or joined heads the list.
const std::map<std::string, std::string>& listSortColumns();
rapport::Sort defaultListSort();

// The user's companies in `sort` order (ties by company id), one page.
std::vector<MemberCompany> listFor(Queryable& db, const std::string& userId,
                                   const rapport::Sort& sort, std::int64_t limit,
                                   std::int64_t offset);
std::int64_t countFor(Queryable& db, const std::string& userId);
std::int64_t memberCount(Queryable& db, const std::string& companyId);

}  // namespace companies
}  // namespace rapport::host::accounts
