// Idempotency-Key on POST (docs/api-choices.md "Safe retries:
// Idempotency-Key"): a repeat replays the kept answer and runs nothing; the
// same key with another request is a 422; a repeat while the first runs is a
// 409; errors are not kept; keys are per user; public routes ignore them;
// keys live in the database (a second instance replays them); an instance
// that died holding a key gives it up after its lease; kept answers are
// sealed. On both engines.
#include <cppunit/extensions/HelperMacros.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include "e2e/common/Api.h"
#include "rapport/ids.h"

using namespace rapport::e2e;

namespace {

ServerProcess& crmServer() {
  static ServerProcess server(generousSettings({{"modules.enabled", "contacts,companies"}}));
  return server;
}

rapport::Headers keyed(const Account& account, const std::string& key) {
  return bearer(account.token, {{"Idempotency-Key", key}});
}

std::int64_t contactCount(HttpClient& client, const Account& account) {
  const HttpResult list = client.get("/v1/crm/contacts?per_page=1", bearer(account.token));
  E2E_ASSERT_DATA(200, list);
  return list.json()["meta"]["total"].asInt();
}

// Changes the kept row of `key` as a dead instance or the clock would
// (RETURNING: queryDatabase reads a result).
void alterKey(const ServerProcess& server, const std::string& key, const std::string& set) {
  const auto rows = queryDatabase(server.databaseUrl(),
                                  "UPDATE idempotency_keys SET " + set + " WHERE key_hash = " +
                                      sqlQuote(rapport::sha256Hex(key)) + " RETURNING key_hash");
  CPPUNIT_ASSERT_EQUAL(std::size_t(1), rows.size());
}

std::string keyRow(const ServerProcess& server, const std::string& key, const std::string& column) {
  const auto rows = queryDatabase(server.databaseUrl(),
                                  "SELECT " + column + " FROM idempotency_keys WHERE key_hash = " +
                                      sqlQuote(rapport::sha256Hex(key)));
  return rows.empty() ? std::string("<none>") : rows[0][0];
}

}  // namespace

class IdempotencyTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(IdempotencyTest);
  CPPUNIT_TEST(testRepeatReplaysAndRunsNothing);
  CPPUNIT_TEST(testSameKeyOtherRequestIs422);
  CPPUNIT_TEST(testErrorsAreNotKept);
  CPPUNIT_TEST(testKeysBelongToTheUser);
  CPPUNIT_TEST(testRunningKeyIs409ThenTakenOverAfterItsLease);
  CPPUNIT_TEST(testAKeyWhoseRequestWroteIsNeverRunAgain);
  CPPUNIT_TEST(testExpiredKeyRunsAgain);
  CPPUNIT_TEST(testIdenticalRequestsAtOnceCreateOneRecord);
  CPPUNIT_TEST(testMalformedKeysAre400);
  CPPUNIT_TEST(testPublicRoutesIgnoreTheKey);
  CPPUNIT_TEST(testKeptAnswersAreSealed);
  CPPUNIT_TEST(testAnotherInstanceReplays);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testRepeatReplaysAndRunsNothing() {
    HttpClient client(crmServer().port());
    const Account account = registerUser(client, "idem-replay");
    const Json body = Json::object({{"name", "Ada"}, {"email", uniqueEmail("ada")}});
    const HttpResult first = client.post("/v1/crm/contacts", body, keyed(account, "k-1"));
    E2E_ASSERT_DATA(201, first);
    CPPUNIT_ASSERT(!first.hasHeader("Idempotent-Replayed"));
    // Same body written differently (whitespace): still the same request.
    const HttpResult again =
        client.send("POST", "/v1/crm/contacts", "  " + body.dump() + "\n", keyed(account, "k-1"));
    E2E_ASSERT_DATA(201, again);
    CPPUNIT_ASSERT_EQUAL(std::string("true"), again.header("Idempotent-Replayed"));
    CPPUNIT_ASSERT_EQUAL(first.body, again.body);
    CPPUNIT_ASSERT(first.header("X-Request-Id") != again.header("X-Request-Id"));
    E2E_ASSERT_RATE_HEADERS(again);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), contactCount(client, account));
  }

  void testSameKeyOtherRequestIs422() {
    HttpClient client(crmServer().port());
    const Account account = registerUser(client, "idem-other");
    E2E_ASSERT_DATA(201, client.post("/v1/crm/contacts", Json::object({{"name", "Ada"}}),
                                     keyed(account, "k-2")));
    const Json error = E2E_ASSERT_ERROR(
        422,
        client.post("/v1/crm/contacts", Json::object({{"name", "Grace"}}), keyed(account, "k-2")));
    CPPUNIT_ASSERT_EQUAL(std::string("This Idempotency-Key was used with another request "
                                     "(method, path or body): use a new key for a new request."),
                         error["message"].asString());
    // Another path with the same key is another request too.
    E2E_ASSERT_ERROR(422, client.post("/v1/crm/companies", Json::object({{"name", "Ada"}}),
                                      keyed(account, "k-2")));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), contactCount(client, account));
  }

  void testErrorsAreNotKept() {
    HttpClient client(crmServer().port());
    const Account account = registerUser(client, "idem-error");
    E2E_ASSERT_ERROR(
        422, client.post("/v1/crm/contacts", Json::object({{"name", ""}}), keyed(account, "k-3")));
    CPPUNIT_ASSERT_EQUAL(std::string("<none>"), keyRow(crmServer(), "k-3", "state"));
    // The key is free: the corrected request runs with it.
    const HttpResult fixed =
        client.post("/v1/crm/contacts", Json::object({{"name", "Ada"}}), keyed(account, "k-3"));
    E2E_ASSERT_DATA(201, fixed);
    CPPUNIT_ASSERT(!fixed.hasHeader("Idempotent-Replayed"));
  }

  void testKeysBelongToTheUser() {
    HttpClient client(crmServer().port());
    const Account first = registerUser(client, "idem-user-a");
    const Account second = registerUser(client, "idem-user-b");
    E2E_ASSERT_DATA(201, client.post("/v1/crm/contacts", Json::object({{"name", "A"}}),
                                     keyed(first, "shared-key")));
    const HttpResult other =
        client.post("/v1/crm/contacts", Json::object({{"name", "B"}}), keyed(second, "shared-key"));
    E2E_ASSERT_DATA(201, other);
    CPPUNIT_ASSERT(!other.hasHeader("Idempotent-Replayed"));
  }

  // What an instance killed mid-request leaves: a running key. Repeats get
  // 409 until its lease ends, then one takes it over and runs.
  void testRunningKeyIs409ThenTakenOverAfterItsLease() {
    HttpClient client(crmServer().port());
    const Account account = registerUser(client, "idem-lease");
    const Json body = Json::object({{"name", "Ada"}});
    E2E_ASSERT_DATA(201, client.post("/v1/crm/contacts", body, keyed(account, "k-4")));
    // Turn the kept key back into one held by a dead instance.
    alterKey(crmServer(), "k-4",
             "state = 'running', holder = 'dead', response_sealed = NULL, lease_until = " +
                 std::to_string((unixNow() + 3600) * 1'000'000));
    const HttpResult held = client.post("/v1/crm/contacts", body, keyed(account, "k-4"));
    const Json error = E2E_ASSERT_ERROR(409, held);
    CPPUNIT_ASSERT_EQUAL(std::string("A request with this Idempotency-Key is still running: "
                                     "retry once it has answered."),
                         error["message"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("1"), held.header("Retry-After"));
    alterKey(crmServer(), "k-4", "lease_until = 1");
    const HttpResult taken = client.post("/v1/crm/contacts", body, keyed(account, "k-4"));
    E2E_ASSERT_DATA(201, taken);
    CPPUNIT_ASSERT(!taken.hasHeader("Idempotent-Replayed"));
    CPPUNIT_ASSERT_EQUAL(std::string("done"), keyRow(crmServer(), "k-4", "state"));
  }

  // What an instance killed between its COMMIT and keeping the answer
  // leaves: a "written" key. Repeats wait for its lease, then are told the
  // request made changes; none runs it a second time.
  void testAKeyWhoseRequestWroteIsNeverRunAgain() {
    HttpClient client(crmServer().port());
    const Account account = registerUser(client, "idem-written");
    const Json body = Json::object({{"name", "Ada"}});
    E2E_ASSERT_DATA(201, client.post("/v1/crm/contacts", body, keyed(account, "k-8")));
    alterKey(crmServer(), "k-8",
             "state = 'written', holder = 'dead', response_sealed = NULL, lease_until = " +
                 std::to_string((unixNow() + 3600) * 1'000'000));
    const HttpResult held = client.post("/v1/crm/contacts", body, keyed(account, "k-8"));
    E2E_ASSERT_ERROR(409, held);
    CPPUNIT_ASSERT_EQUAL(std::string("1"), held.header("Retry-After"));
    alterKey(crmServer(), "k-8", "lease_until = 1");
    const HttpResult lost = client.post("/v1/crm/contacts", body, keyed(account, "k-8"));
    const Json error = E2E_ASSERT_ERROR(409, lost);
    CPPUNIT_ASSERT_EQUAL(std::string("A request with this Idempotency-Key made changes but its "
                                     "answer was not kept (the server stopped). It will not run "
                                     "again: read the records to see what it changed, or use a "
                                     "new key for a new request."),
                         error["message"].asString());
    CPPUNIT_ASSERT(!lost.hasHeader("Retry-After"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), contactCount(client, account));
  }

  void testExpiredKeyRunsAgain() {
    HttpClient client(crmServer().port());
    const Account account = registerUser(client, "idem-expired");
    const Json body = Json::object({{"name", "Ada"}});
    E2E_ASSERT_DATA(201, client.post("/v1/crm/contacts", body, keyed(account, "k-5")));
    alterKey(crmServer(), "k-5", "expires_at = 1");
    const HttpResult fresh = client.post("/v1/crm/contacts", body, keyed(account, "k-5"));
    E2E_ASSERT_DATA(201, fresh);
    CPPUNIT_ASSERT(!fresh.hasHeader("Idempotent-Replayed"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), contactCount(client, account));
  }

  // A client retrying over several connections at once: one record, and
  // every answer is the creation, its replay, or "still running".
  void testIdenticalRequestsAtOnceCreateOneRecord() {
    HttpClient setup(crmServer().port());
    const Account account = registerUser(setup, "idem-race");
    const Json body = Json::object({{"name", "Raced"}});
    std::atomic<int> fresh{0}, replayed{0}, running{0}, other{0};
    std::set<std::string> ids;
    std::mutex idsMutex;
    std::vector<std::thread> clients;
    for (int c = 0; c < 8; ++c) {
      clients.emplace_back([&] {
        HttpClient client(crmServer().port());
        const HttpResult r = client.post("/v1/crm/contacts", body, keyed(account, "k-race"));
        if (r.status == 201) {
          (r.hasHeader("Idempotent-Replayed") ? replayed : fresh)++;
          std::lock_guard lock(idsMutex);
          ids.insert(r.json()["data"]["id"].asString());
        } else {
          (r.status == 409 ? running : other)++;
        }
      });
    }
    for (auto& t : clients) t.join();
    CPPUNIT_ASSERT_EQUAL(1, fresh.load());
    CPPUNIT_ASSERT_EQUAL(0, other.load());
    CPPUNIT_ASSERT_EQUAL(8, fresh.load() + replayed.load() + running.load());
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), ids.size());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), contactCount(setup, account));
  }

  void testMalformedKeysAre400() {
    HttpClient client(crmServer().port());
    const Account account = registerUser(client, "idem-bad");
    for (const std::string& key :
         {std::string(256, 'k'), std::string("has space"), std::string("caf\xC3\xA9")}) {
      const Json error = E2E_ASSERT_ERROR(
          400, client.post("/v1/crm/contacts", Json::object({{"name", "A"}}), keyed(account, key)));
      CPPUNIT_ASSERT_EQUAL(
          std::string("The Idempotency-Key header must be 1 to 255 visible ASCII characters."),
          error["message"].asString());
    }
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), contactCount(client, account));
    E2E_ASSERT_DATA(201, client.post("/v1/crm/contacts", Json::object({{"name", "A"}}),
                                     keyed(account, std::string(255, 'k'))));
  }

  void testPublicRoutesIgnoreTheKey() {
    HttpClient client(crmServer().port());
    const Account account = registerUser(client, "idem-public");
    const Json body = Json::object({{"email", account.email}, {"password", account.password}});
    const HttpResult first =
        client.post("/v1/auth/login", body, {{"Idempotency-Key", "login-key"}});
    const HttpResult second =
        client.post("/v1/auth/login", body, {{"Idempotency-Key", "login-key"}});
    const Json a = E2E_ASSERT_DATA(200, first);
    const Json b = E2E_ASSERT_DATA(200, second);
    CPPUNIT_ASSERT(!second.hasHeader("Idempotent-Replayed"));
    CPPUNIT_ASSERT(a["token"].asString() != b["token"].asString());
  }

  void testKeptAnswersAreSealed() {
    HttpClient client(crmServer().port());
    const Account account = registerUser(client, "idem-sealed");
    E2E_ASSERT_DATA(201,
                    client.post("/v1/crm/contacts", Json::object({{"name", "Visible Name Xyzzy"}}),
                                keyed(account, "k-sealed")));
    const std::string sealed = keyRow(crmServer(), "k-sealed", "response_sealed");
    CPPUNIT_ASSERT(sealed != "<none>" && !sealed.empty());
    CPPUNIT_ASSERT(sealed.find("Xyzzy") == std::string::npos);
    // Neither the key itself.
    CPPUNIT_ASSERT(queryDatabase(crmServer().databaseUrl(),
                                 "SELECT 1 FROM idempotency_keys WHERE key_hash = 'k-sealed'")
                       .empty());
  }

  // Keys live in the database: a second instance on it (here, the same
  // database and sealing key after a restart) replays them.
  void testAnotherInstanceReplays() {
    auto first =
        std::make_unique<ServerProcess>(generousSettings({{"modules.enabled", "contacts"}}));
    HttpClient client(first->port());
    const Account account = registerUser(client, "idem-instance");
    const Json body = Json::object({{"name", "Ada"}});
    const HttpResult created = client.post("/v1/crm/contacts", body, keyed(account, "k-instance"));
    E2E_ASSERT_DATA(201, created);
    const std::string database = first->databaseUrl();
    const std::string workDir = first->workDir();
    CPPUNIT_ASSERT_EQUAL(0, first->stop());
    ServerProcess second(
        generousSettings({{"modules.enabled", "contacts"}, {"database.url", database}}), {}, {},
        workDir);
    HttpClient again(second.port());
    const HttpResult replay = again.post("/v1/crm/contacts", body, keyed(account, "k-instance"));
    E2E_ASSERT_DATA(201, replay);
    CPPUNIT_ASSERT_EQUAL(std::string("true"), replay.header("Idempotent-Replayed"));
    CPPUNIT_ASSERT_EQUAL(created.body, replay.body);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(IdempotencyTest);
