// SQL for the members of a tenant company (decisions §2, /company/members):
// the memberships of one company joined with their users. Functions take the
// Queryable to run on, so they work inside or outside a transaction.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rapport/db.h"
#include "rapport/json.h"
#include "rapport/pagination.h"
#include "rapport/roles.h"

namespace rapport::host::accounts {

struct MemberRecord {
  std::string userId;
  std::string name;
  std::string email;
  Role role = Role::Member;
  std::int64_t joinedAt = 0;  // when the membership was created (micros)
};

namespace members {

// API sort fields -> SQL: joined_at, name, email. The default is oldest
// member first (joined_at ascending): the founders head the list.
const std::map<std::string, std::string>& sortColumns();
rapport::Sort defaultSort();

// One page of the company's members in `sort` order (ties by user id).
std::vector<MemberRecord> list(Queryable& db, const std::string& companyId,
                               const rapport::Sort& sort, std::int64_t limit, std::int64_t offset);
std::optional<MemberRecord> find(Queryable& db, const std::string& companyId,
                                 const std::string& userId);
std::int64_t ownerCount(Queryable& db, const std::string& companyId);

void updateRole(Queryable& db, const std::string& companyId, const std::string& userId, Role role);
void remove(Queryable& db, const std::string& companyId, const std::string& userId);

// Serialises the membership changes of one company until `tx` ends, so two
// owners demoting or removing each other at once cannot leave none. On
// SQLite the write transaction already excludes every other writer.
void lockCompany(Tx& tx, const std::string& companyId);

// {user_id, name, email, role, joined_at}.
Json memberJson(const MemberRecord& member);

}  // namespace members
}  // namespace rapport::host::accounts
