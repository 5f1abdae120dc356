// Shared pieces of e2e.sessions: a pair of rapportd on one database (on
// PostgreSQL two instances; on SQLite, which serves one rapportd per file,
// the same instance twice), a member of someone else's company, and the
// "within a second" poll.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "e2e/common/Api.h"
#include "support/TestEnv.h"

namespace rapport::e2e::sessions {

// A (where changes are made) and B (where they must show). `extra` settings
// go to both.
struct Pair {
  explicit Pair(ServerProcess::Settings extra = {}) {
    const std::string database = rapport::test::freshDatabaseUrl("sessions");
    extra["database.url"] = database;
    first = std::make_unique<ServerProcess>(generousSettings(extra));
    if (rapport::test::onPostgres())
      second = std::make_unique<ServerProcess>(generousSettings(extra));
    a = std::make_unique<HttpClient>(first->port());
    b = std::make_unique<HttpClient>(second ? second->port() : first->port());
  }

  std::unique_ptr<ServerProcess> first;
  std::unique_ptr<ServerProcess> second;  // PostgreSQL only
  std::unique_ptr<HttpClient> a;
  std::unique_ptr<HttpClient> b;
};

// Asks `status` every 50 ms until it answers `expected` or one second has
// passed since `since`; true when it did within the second.
inline bool withinOneSecond(const std::function<int()>& status, int expected,
                            std::chrono::steady_clock::time_point since) {
  const auto deadline = since + std::chrono::seconds(1);
  for (;;) {
    const int got = status();
    const auto now = std::chrono::steady_clock::now();
    if (got == expected) return now <= deadline;
    if (now >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// A user added to `owner`'s company with `role`, holding a token for that
// company (logged in, then switched into it).
struct Member {
  Account account;
  std::string token;  // resolves owner's company
};

inline Member addMember(HttpClient& client, const Account& owner, const std::string& role) {
  Member member;
  member.account = registerUser(client, "member");
  E2E_ASSERT_DATA(201, client.post("/v1/company/members",
                                   Json::object({{"email", member.account.email}, {"role", role}}),
                                   bearer(owner.token)));
  member.token = switchContext(client, member.account.token, owner.companyId);
  return member;
}

}  // namespace rapport::e2e::sessions
