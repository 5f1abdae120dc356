// The migrations ledger (decisions §12): host and module migrations run once
// each and are recorded once, even when two servers start on one database
// at the same moment.
#include <cppunit/extensions/HelperMacros.h>

#include <memory>
#include <set>
#include <thread>

#include "e2e/common/Api.h"
#include "support/TestEnv.h"

using namespace rapport::e2e;

class LedgerTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(LedgerTest);
  CPPUNIT_TEST(testTwoServersStartingTogetherMigrateOnce);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testTwoServersStartingTogetherMigrateOnce() {
    const std::string database = rapport::test::freshDatabaseUrl("ledger");
    const ServerProcess::Settings settings = probeSettings({{"database.url", database}});

    std::unique_ptr<ServerProcess> servers[2];
    std::string failures[2];
    {
      std::thread starters[2];
      for (int i = 0; i < 2; ++i) {
        starters[i] = std::thread([&, i] {
          try {
            servers[i] = std::make_unique<ServerProcess>(settings);
          } catch (const std::exception& e) {
            failures[i] = e.what();
          }
        });
      }
      for (auto& t : starters) t.join();
    }
    for (const auto& failure : failures) {
      CPPUNIT_ASSERT_MESSAGE("a server failed to start beside the other:\n" + failure,
                             failure.empty());
    }

    const auto ledger = queryDatabase(database, "SELECT owner, id FROM schema_migrations");
    std::set<std::pair<std::string, std::string>> distinct;
    std::set<std::string> owners;
    for (const auto& row : ledger) {
      distinct.emplace(row[0], row[1]);
      owners.insert(row[0]);
    }
    const std::string logs = servers[0]->log() + "\n----\n" + servers[1]->log();
    CPPUNIT_ASSERT_EQUAL_MESSAGE(logs, distinct.size(), ledger.size());
    CPPUNIT_ASSERT_MESSAGE(logs, owners.count("host") == 1);
    CPPUNIT_ASSERT_MESSAGE(logs, owners.count("probe") == 1);
    // Each migration ran in exactly one of the two.
    CPPUNIT_ASSERT_EQUAL_MESSAGE(
        logs, ledger.size(),
        linesContaining(servers[0]->log(), "migration applied").size() +
            linesContaining(servers[1]->log(), "migration applied").size());

    // Both serve the same data.
    HttpClient first(servers[0]->port());
    HttpClient second(servers[1]->port());
    const Account account = registerUser(first, "shared");
    const Json data = E2E_ASSERT_DATA(200, login(second, account.email, account.password));
    const std::string token = data["token"].asString();
    const Json note = E2E_ASSERT_DATA(
        201, first.post("/v1/probe/notes", Json::object({{"body", "both"}}), bearer(token)));
    E2E_ASSERT_DATA(200, second.get("/v1/probe/notes/" + note["id"].asString(), bearer(token)));

    for (auto& server : servers) CPPUNIT_ASSERT_EQUAL(0, server->stop());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(LedgerTest);
