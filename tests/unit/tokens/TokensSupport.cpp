#include "TokensSupport.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "accounts/CompanyStore.h"
#include "accounts/UserStore.h"
#include "rapport/ids.h"
#include "rapport/time.h"
#include "storage/Migrator.h"
#include "support/TestEnv.h"

namespace rapport::test::tokens {

namespace acc = rapport::host::accounts;

std::unique_ptr<rapport::host::SqlDatabase> openMigratedDatabase(const std::string& url) {
  // Six connections: the tests race several threads on one database.
  return rapport::test::accounts::openMigratedDatabase(url, 6);
}

std::pair<std::string, std::string> seedOwner(rapport::Queryable& db, std::int64_t now,
                                              const std::string& label,
                                              const std::string& existingUser) {
  std::string userId = existingUser;
  if (userId.empty()) {
    acc::UserRecord user;
    user.id = rapport::newId("user_");
    user.name = label;
    user.email = label + "-" + rapport::newId("x_").substr(2, 8) + "@example.com";
    user.createdAt = user.updatedAt = now;
    acc::users::insert(db, user);
    userId = user.id;
  }
  const std::string companyId = acc::companies::createOwned(db, label + " Ltd", userId, now).id;
  return {userId, companyId};
}

bool waitUntil(const std::function<bool()>& condition, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    if (condition()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

std::int64_t countRows(rapport::Queryable& db, const std::string& sql,
                       const rapport::Params& params) {
  return db.query(sql, params).front().i64("n");
}

}  // namespace rapport::test::tokens
