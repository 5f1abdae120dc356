// Several rapportd behind nginx (issue 11, docs/deploy.md): three instances
// on one PostgreSQL database started at the same moment, one redis
// (ratelimit.store = redis), and a private nginx in front with
// server.trusted_proxies = its address. Through nginx, the cluster behaves
// as one server:
//   - migrations started together: all three come up, each migration once;
//   - the rate limit is one count across instances (requests spread over
//     all three: their access logs), exactly N pass, then 429;
//   - the login throttle is one count (5 wrong passwords spread, then 429);
//   - a token revoked through one instance is refused by the others within
//     a second (revocation notices; the bound is auth.token_cache_ttl when
//     notices are down);
//   - each webhook delivery arrives once at the receiver;
//   - X-Forwarded-For: the access log shows the client nginx saw, and a
//     client-sent (spoofed) X-Forwarded-For changes neither that nor the
//     rate-limit key.
// And redis going down under a running instance (a private redis-server,
// .ci/lib/redis.sh, stopped mid-test): the rate limit fails open, logins
// fail closed with 503, and the outage is logged once, not per request.
// PostgreSQL only: a SQLite file is one machine's (docs/api-choices.md);
// several instances are a PostgreSQL set-up, so no SQLite run is registered.
//
// Clients connect to nginx from distinct loopback addresses (all of 127/8 is
// loopback; random middle bytes per run, so a rerun on the same redis within
// the window starts afresh too), so each case counts in a fresh per-address
// window; nginx connects to the instances from 127.0.0.1, the trusted proxy.
#include <cppunit/extensions/HelperMacros.h>

#include <future>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <thread>

#include "e2e/instances/Nginx.h"
#include "e2e/webhooks/WebhooksSuite.h"
#include "support/TestEnv.h"
#include "unit/redis/PrivateRedis.h"
#include "unit/redis/TestRedis.h"

using namespace rapport::e2e;
using namespace rapport::e2e::webhooks;

namespace {

constexpr int kInstances = 3;
constexpr std::int64_t kRequests = 20;  // ratelimit.requests
constexpr std::int64_t kWindow = 3600;  // ratelimit.window: no edge during a run...

// ... unless a run starts in its last minute: then wait for the next one.
void awayFromWindowEdge() {
  if (unixNow() % kWindow < kWindow - 60) return;
  const std::int64_t next = unixNow() / kWindow * kWindow + kWindow;
  CPPUNIT_ASSERT(waitUntil([&] { return unixNow() >= next; }, std::chrono::seconds(61)));
}

// 127.<a>.<b>.<host>, with <a>.<b> drawn once per test process.
std::string clientAddress(int host) {
  static const std::string prefix = [] {
    std::mt19937 random{std::random_device{}()};
    std::uniform_int_distribution<int> byte(1, 254);
    const int a = byte(random);
    const int b = byte(random);
    return "127." + std::to_string(a) + "." + std::to_string(b) + ".";
  }();
  return prefix + std::to_string(host);
}

// Three rapportd started together on one fresh database, and nginx in front.
struct Cluster {
  Cluster() : database(rapport::test::freshDatabaseUrl("instances")) {
    ServerProcess::Settings settings = deliverySettings({
        {"database.url", database},
        {"ratelimit.store", "redis"},
        {"redis.url", rapport::test::redisUrl()},
        {"ratelimit.requests", std::to_string(kRequests)},
        {"ratelimit.window", std::to_string(kWindow)},
        {"server.trusted_proxies", "127.0.0.1"},
    });
    std::thread starters[kInstances];
    for (int i = 0; i < kInstances; ++i) {
      starters[i] = std::thread([&, i] {
        try {
          servers[i] = std::make_unique<ServerProcess>(settings);
        } catch (const std::exception& e) {
          failures[i] = e.what();
        }
      });
    }
    for (auto& starter : starters) starter.join();
    std::vector<int> ports;
    for (const auto& server : servers) {
      if (server) ports.push_back(server->port());
    }
    if (ports.size() == kInstances) nginx = std::make_unique<Nginx>(ports);
  }

  // A client of nginx from clientAddress(host).
  std::unique_ptr<HttpClient> through(int host) const {
    return std::make_unique<HttpClient>(nginx->port(), "127.0.0.1", clientAddress(host));
  }
  // How many access lines of instance `i` contain every one of `parts`.
  std::size_t accessLines(int i, std::initializer_list<std::string> parts) const {
    std::size_t n = 0;
    for (const auto& line : linesContaining(servers[i]->log(), "msg=request")) {
      bool all = true;
      for (const auto& part : parts) all = all && line.find(part) != std::string::npos;
      if (all) ++n;
    }
    return n;
  }
  std::string logs() const {
    std::string out;
    for (const auto& server : servers) out += server->log() + "\n----\n";
    return out;
  }

  std::string database;
  std::unique_ptr<ServerProcess> servers[kInstances];
  std::string failures[kInstances];
  std::unique_ptr<Nginx> nginx;
};

Cluster& cluster() {
  static Cluster shared;
  for (const auto& failure : shared.failures) {
    CPPUNIT_ASSERT_MESSAGE("an instance failed to start beside the others:\n" + failure,
                           failure.empty());
  }
  CPPUNIT_ASSERT(shared.nginx);
  return shared;
}

}  // namespace

class InstancesTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(InstancesTest);
  CPPUNIT_TEST(testStartedTogetherMigrateOnce);
  CPPUNIT_TEST(testRateLimitIsOneCountAcrossInstances);
  CPPUNIT_TEST(testLoginThrottleIsShared);
  CPPUNIT_TEST(testRevocationReachesEveryInstance);
  CPPUNIT_TEST(testEachWebhookDeliveryArrivesOnce);
  CPPUNIT_TEST(testACursorContinuesOnAnotherInstance);
  CPPUNIT_TEST(testTheEventLogIsOneOrderOnEveryInstance);
  CPPUNIT_TEST(testACustomFieldReachesEveryInstance);
  CPPUNIT_TEST(testAKeysRevocationAndScopesReachEveryInstance);
  CPPUNIT_TEST(testForwardedForNamesTheClientNginxSaw);
  CPPUNIT_TEST(testRedisDownFailsOpenForLimitsClosedForLogins);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override {
    if (!rapport::test::onPostgres()) CPPUNIT_FAIL("e2e.instances runs on PostgreSQL only");
  }

  void testStartedTogetherMigrateOnce() {
    Cluster& c = cluster();
    const auto ledger = queryDatabase(c.database, "SELECT owner, id FROM schema_migrations");
    std::set<std::pair<std::string, std::string>> distinct;
    for (const auto& row : ledger) distinct.emplace(row[0], row[1]);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(c.logs(), distinct.size(), ledger.size());
    CPPUNIT_ASSERT(ledger.size() > 1);
    std::size_t applied = 0;
    for (const auto& server : c.servers) {
      applied += linesContaining(server->log(), "migration applied").size();
    }
    CPPUNIT_ASSERT_EQUAL_MESSAGE(c.logs(), ledger.size(), applied);
    for (const auto& server : c.servers) {
      CPPUNIT_ASSERT_MESSAGE(server->log(),
                             !linesContaining(server->log(), "store=redis://127.0.0.1").empty());
    }
  }

  void testRateLimitIsOneCountAcrossInstances() {
    Cluster& c = cluster();
    awayFromWindowEdge();
    auto client = c.through(11);
    // GET /v1/versions: public, counted per client address.
    for (std::int64_t i = 1; i <= kRequests; ++i) {
      const HttpResult ok = client->get("/v1/versions");
      E2E_ASSERT_STATUS(200, ok);
      CPPUNIT_ASSERT_EQUAL(kRequests - i, headerInt(ok, "X-RateLimit-Remaining"));
    }
    const HttpResult refused = client->get("/v1/versions");
    E2E_ASSERT_ERROR(429, refused);
    CPPUNIT_ASSERT(headerInt(refused, "Retry-After") >= 1);
    // Refused by whichever instance answers: three more, all 429.
    for (int i = 0; i < kInstances; ++i) E2E_ASSERT_ERROR(429, client->get("/v1/versions"));
    // Spread over every instance: each served some of the 200s and a 429.
    for (int i = 0; i < kInstances; ++i) {
      CPPUNIT_ASSERT_MESSAGE(c.logs(), c.accessLines(i, {"route=/v1/versions", "status=200",
                                                         "client=" + clientAddress(11)}) > 0);
      CPPUNIT_ASSERT_MESSAGE(c.logs(), c.accessLines(i, {"route=/v1/versions", "status=429",
                                                         "client=" + clientAddress(11)}) > 0);
    }
  }

  void testLoginThrottleIsShared() {
    Cluster& c = cluster();
    awayFromWindowEdge();
    auto client = c.through(12);
    const Account account = registerUser(*client, "throttle");
    for (int i = 0; i < 5; ++i) {
      E2E_ASSERT_ERROR(401, login(*client, account.email, "wrong guess " + std::to_string(i)));
    }
    // Per instance they would be 1 or 2 failures: the shared count says 5.
    const HttpResult refused = login(*client, account.email, account.password);
    E2E_ASSERT_ERROR(429, refused);
    CPPUNIT_ASSERT(headerInt(refused, "Retry-After") >= 1);
    for (int i = 0; i < kInstances; ++i) {
      E2E_ASSERT_ERROR(429, login(*client, account.email, account.password));
    }
    int instancesSeeingFailures = 0;
    for (int i = 0; i < kInstances; ++i) {
      if (c.accessLines(i, {"route=/v1/auth/login", "status=401", "client=" + clientAddress(12)}) >
          0) {
        ++instancesSeeingFailures;
      }
    }
    CPPUNIT_ASSERT_EQUAL_MESSAGE(c.logs(), kInstances, instancesSeeingFailures);
    // Another address is not throttled for that account.
    auto other = c.through(13);
    E2E_ASSERT_DATA(200, login(*other, account.email, account.password));
  }

  void testRevocationReachesEveryInstance() {
    Cluster& c = cluster();
    auto client = c.through(14);
    const Account account = registerUser(*client, "revoke");
    std::vector<std::unique_ptr<HttpClient>> direct;
    for (const auto& server : c.servers) {
      direct.push_back(std::make_unique<HttpClient>(server->port()));
      // Every instance knows (and may cache) the token.
      E2E_ASSERT_DATA(200, direct.back()->get("/v1/auth/me", bearer(account.token)));
    }
    E2E_ASSERT_STATUS(200,
                      direct[0]->post("/v1/auth/logout", Json::object(), bearer(account.token)));
    for (int i = 1; i < kInstances; ++i) {
      CPPUNIT_ASSERT(waitUntil(
          [&] { return direct[i]->get("/v1/auth/me", bearer(account.token)).status == 401; },
          std::chrono::seconds(1)));
      E2E_ASSERT_ERROR(401, direct[i]->get("/v1/auth/me", bearer(account.token)));
    }
    E2E_ASSERT_ERROR(401, client->get("/v1/auth/me", bearer(account.token)));
  }

  // decisions §13 behind a load balancer: each page of a cursor walk may
  // reach another instance; the cursor, sealed with the key they share,
  // continues there, and the walk is the list in its order.
  void testACursorContinuesOnAnotherInstance() {
    constexpr int kContacts = 7;  // 7 creates, 4 pages and a whole list: within kRequests
    Cluster& c = cluster();
    awayFromWindowEdge();
    auto client = c.through(16);
    const Account account = registerUser(*client, "cursor-walk");
    for (int i = 0; i < kContacts; ++i) {
      createContact(*client, account.token,
                    Json::object({{"name", "Walker " + std::to_string(i)}}));
    }
    std::vector<std::string> walked;
    std::string cursor;
    for (int page = 0; page < 4; ++page) {
      HttpClient direct(c.servers[page % kInstances]->port());
      const std::string query =
          "/v1/crm/contacts?sort=name&limit=2" + (cursor.empty() ? "" : "&cursor=" + cursor);
      const Json body = E2E_ASSERT_JSON(direct.get(query, bearer(account.token)));
      for (const Json& contact : body["data"].asArray()) walked.push_back(contact["id"].asString());
      cursor = body["meta"]["next_cursor"].isNull() ? "" : body["meta"]["next_cursor"].asString();
    }
    CPPUNIT_ASSERT(cursor.empty());  // 7 contacts: the 4th page was the last
    std::vector<std::string> whole;
    // Held first: a range-for over a temporary's member would dangle.
    const Json list = E2E_ASSERT_DATA(
        200, client->get("/v1/crm/contacts?sort=name&per_page=100", bearer(account.token)));
    for (const Json& contact : list.asArray()) whole.push_back(contact["id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::size_t(kContacts), whole.size());
    CPPUNIT_ASSERT(walked == whole);
  }

  // The event log on several instances (docs/events.md, "Order"; numbered
  // after each commit by passes, migration 0016): three instances write one
  // company's contacts at once; right after each create, another instance's
  // GET /v1/events already lists it (its reader catches up with the
  // numbering), and in the end every instance answers the same log,
  // numbered 1..N without a gap, each create once.
  void testTheEventLogIsOneOrderOnEveryInstance() {
    constexpr int kPerInstance = 2;  // 1 + 3 x (2 creates + 2 reads) + 3 reads: within kRequests
    Cluster& c = cluster();
    awayFromWindowEdge();
    auto client = c.through(18);
    const Account account = registerUser(*client, "event-log");
    const auto eventIds = [&](HttpClient& instance) {
      std::vector<std::pair<std::int64_t, std::string>> out;  // sequence, contact id
      const Json page =
          E2E_ASSERT_JSON(instance.get("/v1/events?limit=100", bearer(account.token)));
      for (const Json& event : page["data"].asArray()) {
        const bool created = event["type"] == Json("crm.contact.created");
        out.emplace_back(event["sequence"].asInt(), created ? event["data"]["id"].asString() : "");
      }
      return out;
    };
    std::vector<std::future<std::vector<std::string>>> writers;
    for (int w = 0; w < kInstances; ++w) {
      writers.push_back(std::async(std::launch::async, [&, w] {
        HttpClient writer(c.servers[w]->port());
        HttpClient reader(c.servers[(w + 1) % kInstances]->port());
        std::vector<std::string> created;
        for (int i = 0; i < kPerInstance; ++i) {
          const std::string id =
              createContact(writer, account.token,
                            Json::object({{"name", "Logged " + std::to_string(w * 10 + i)}}))["id"]
                  .asString();
          created.push_back(id);
          bool seen = false;
          for (const auto& [sequence, contact] : eventIds(reader)) seen = seen || contact == id;
          CPPUNIT_ASSERT_MESSAGE("instance " + std::to_string((w + 1) % kInstances) +
                                     " does not list the event of " + id + " created on " +
                                     std::to_string(w),
                                 seen);
        }
        return created;
      }));
    }
    std::set<std::string> created;
    for (auto& writer : writers) {
      for (const std::string& id : writer.get()) created.insert(id);
    }
    std::vector<std::pair<std::int64_t, std::string>> first;
    for (int i = 0; i < kInstances; ++i) {
      HttpClient instance(c.servers[i]->port());
      const auto log = eventIds(instance);
      if (i == 0) first = log;
      CPPUNIT_ASSERT(log == first);  // one order, on every instance
    }
    std::multiset<std::string> logged;
    for (std::size_t k = 0; k < first.size(); ++k) {
      CPPUNIT_ASSERT_EQUAL(static_cast<std::int64_t>(k + 1), first[k].first);  // no gap
      if (!first[k].second.empty()) logged.insert(first[k].second);
    }
    CPPUNIT_ASSERT(logged == std::multiset<std::string>(created.begin(), created.end()));
  }

  // decisions §14 on several instances (docs/custom-fields.md,
  // "Consistency"): a write on any instance holds to the definitions as they
  // are now, and another instance's reads follow a change within a second.
  void testACustomFieldReachesEveryInstance() {
    Cluster& c = cluster();
    awayFromWindowEdge();
    auto client = c.through(17);
    const Account account = registerUser(*client, "custom-fields");
    HttpClient first(c.servers[0]->port()), second(c.servers[1]->port()),
        third(c.servers[2]->port());
    const Json contact =
        createContact(*client, account.token, Json::object({{"name", "Everywhere"}}));
    const std::string one = "/v1/crm/contacts/" + contact["id"].asString();
    // The second and third instances have read (and cached) the company's
    // definitions: none.
    for (HttpClient* instance : {&second, &third}) {
      CPPUNIT_ASSERT(
          E2E_ASSERT_DATA(200, instance->get(one, bearer(account.token)))["custom_fields"] ==
          Json::object());
    }
    E2E_ASSERT_DATA(
        201, first.post("/v1/crm/contacts/fields",
                        Json::object({{"key", "region"}, {"label", "Region"}, {"type", "text"}}),
                        bearer(account.token)));
    // A write on the third instance knows the new field at once.
    E2E_ASSERT_DATA(
        200,
        third.patch(one, Json::object({{"custom_fields", Json::object({{"region", "north"}})}}),
                    bearer(account.token)));
    // The second shows it within a second (polled every 250 ms: 9 requests
    // at most; with the others, 17 within the token's kRequests).
    bool shown = false;
    for (int attempt = 0; attempt < 9 && !shown; ++attempt) {
      if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(250));
      const Json seen = E2E_ASSERT_DATA(200, second.get(one, bearer(account.token)));
      shown = seen["custom_fields"] == Json::object({{"region", "north"}});
    }
    CPPUNIT_ASSERT_MESSAGE("the second instance never showed the new field", shown);
    // Deleted on the first, refused at once by a write on the third.
    E2E_ASSERT_DATA(200, first.del("/v1/crm/contacts/fields/region", bearer(account.token)));
    const Json refused = E2E_ASSERT_ERROR(
        422, third.patch(one, Json::object({{"custom_fields", Json::object({{"region", "x"}})}}),
                         bearer(account.token)));
    CPPUNIT_ASSERT(refused["errors"].contains("custom_fields.region"));
  }

  // decisions §15 on several instances: a key revoked (DELETE) through the
  // first instance answers 401 on the second within a second, and a scope
  // taken from a key by PATCH there answers 403 within a second. Polled
  // every 100 ms (11 requests at most each): the key's own counter and the
  // address's (an unknown key counts per address) stay within kRequests.
  void testAKeysRevocationAndScopesReachEveryInstance() {
    Cluster& c = cluster();
    awayFromWindowEdge();
    auto client = c.through(18);
    const Account account = registerUser(*client, "keys");
    // Straight to the instances, each from an address of its own.
    HttpClient first(c.servers[0]->port(), "127.0.0.1", clientAddress(19));
    HttpClient second(c.servers[1]->port(), "127.0.0.1", clientAddress(20));
    HttpClient third(c.servers[2]->port(), "127.0.0.1", clientAddress(21));
    const auto createKey = [&](const char* scope) {
      const Json body =
          Json::object({{"name", "Everywhere"}, {"scopes", Json::Array{Json(scope)}}});
      return E2E_ASSERT_DATA(201, first.post("/v1/api-keys", body, bearer(account.token)));
    };
    // Polls `check` every 100 ms for at most a second; whether it held.
    const auto withinASecond = [](const std::function<bool()>& check) {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
      while (true) {
        if (check()) return true;
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    };

    const Json revoked = createKey("contacts:read");
    const std::string revokedKey = revoked["key"].asString();
    // The other instances know (and may cache) the key.
    E2E_ASSERT_DATA(200, second.get("/v1/crm/contacts", bearer(revokedKey)));
    E2E_ASSERT_DATA(200, third.get("/v1/crm/contacts", bearer(revokedKey)));
    E2E_ASSERT_DATA(200,
                    first.del("/v1/api-keys/" + revoked["id"].asString(), bearer(account.token)));
    CPPUNIT_ASSERT_MESSAGE("the second instance still took the revoked key", withinASecond([&] {
                             return second.get("/v1/crm/contacts", bearer(revokedKey)).status ==
                                    401;
                           }));
    const HttpResult refused = second.get("/v1/crm/contacts", bearer(revokedKey));
    E2E_ASSERT_ERROR(401, refused);
    CPPUNIT_ASSERT_EQUAL(std::string("Bearer"), refused.header("WWW-Authenticate"));
    E2E_ASSERT_ERROR(401, third.get("/v1/crm/contacts", bearer(revokedKey)));

    const Json narrowed = createKey("contacts:read");
    const std::string narrowedKey = narrowed["key"].asString();
    E2E_ASSERT_DATA(200, second.get("/v1/crm/contacts", bearer(narrowedKey)));
    E2E_ASSERT_DATA(200, first.patch("/v1/api-keys/" + narrowed["id"].asString(),
                                     Json::object({{"scopes", Json::Array{Json("deals:read")}}}),
                                     bearer(account.token)));
    CPPUNIT_ASSERT_MESSAGE("the second instance kept the scope taken away", withinASecond([&] {
                             return second.get("/v1/crm/contacts", bearer(narrowedKey)).status ==
                                    403;
                           }));
    const HttpResult lacking = second.get("/v1/crm/contacts", bearer(narrowedKey));
    CPPUNIT_ASSERT_EQUAL(std::string("This API key lacks the scope contacts:read."),
                         E2E_ASSERT_ERROR(403, lacking)["message"].asString());
    E2E_ASSERT_DATA(200, second.get("/v1/crm/deals", bearer(narrowedKey)));
  }

  void testEachWebhookDeliveryArrivesOnce() {
    constexpr int kEvents = 12;  // within one token's kRequests
    Cluster& c = cluster();
    awayFromWindowEdge();
    Receiver receiver;
    auto client = c.through(15);
    const Account account = registerUser(*client, "hooks");
    const Json webhook = createWebhook(*client, account.token, receiver.url("/cluster"),
                                       eventsList({"crm.contact.created"}));
    std::set<std::string> contacts;
    for (int i = 0; i < kEvents; ++i) {
      contacts.insert(createContact(*client, account.token,
                                    Json::object({{"name", "Cluster " + std::to_string(i)}}))["id"]
                          .asString());
    }
    CPPUNIT_ASSERT(receiver.waitForRequests(kEvents, 60s, "/cluster"));
    // Every delivery final and a success: nothing left that could be sent again.
    const std::string settledSql =
        "SELECT count(*) FROM webhook_deliveries WHERE status = 'success' AND webhook_id = " +
        sqlQuote(webhook["id"].asString());
    CPPUNIT_ASSERT(waitUntil(
        [&] { return queryDatabase(c.database, settledSql)[0][0] == std::to_string(kEvents); },
        30s));
    const auto requests = receiver.requests("/cluster");
    const DeliveryTally tally = tallyDeliveries(requests);
    CPPUNIT_ASSERT_MESSAGE("sent more than once:" + tally.repeated(), tally.repeated().empty());
    CPPUNIT_ASSERT_EQUAL(std::size_t(kEvents), requests.size());
    CPPUNIT_ASSERT(tally.recordIds == contacts);
  }

  void testForwardedForNamesTheClientNginxSaw() {
    Cluster& c = cluster();
    awayFromWindowEdge();
    auto client = c.through(16);
    const HttpResult first = client->get("/v1/versions");
    E2E_ASSERT_STATUS(200, first);
    const std::int64_t remaining = headerInt(first, "X-RateLimit-Remaining");
    // Spoofed hops: the same client, the same count (a spoof would start afresh).
    const HttpResult spoofed = client->get("/v1/versions", {{"X-Forwarded-For", "198.51.100.77"}});
    E2E_ASSERT_STATUS(200, spoofed);
    CPPUNIT_ASSERT_EQUAL(remaining - 1, headerInt(spoofed, "X-RateLimit-Remaining"));
    const HttpResult twice =
        client->get("/v1/versions", {{"X-Forwarded-For", "203.0.113.5, 127.0.0.1"}});
    E2E_ASSERT_STATUS(200, twice);
    CPPUNIT_ASSERT_EQUAL(remaining - 2, headerInt(twice, "X-RateLimit-Remaining"));
    std::size_t seen = 0;
    for (int i = 0; i < kInstances; ++i) {
      seen += c.accessLines(i, {"route=/v1/versions", "client=" + clientAddress(16)});
      for (const char* spoof : {"client=198.51.100.77", "client=203.0.113.5"}) {
        CPPUNIT_ASSERT_MESSAGE(c.logs(), c.accessLines(i, {spoof}) == 0);
      }
    }
    CPPUNIT_ASSERT_EQUAL_MESSAGE(c.logs(), std::size_t{3}, seen);
    // Straight to an instance from an address that is no proxy: the header
    // is ignored.
    HttpClient direct(c.servers[0]->port(), "127.0.0.1", clientAddress(17));
    E2E_ASSERT_STATUS(200, direct.get("/v1/versions", {{"X-Forwarded-For", "198.51.100.78"}}));
    CPPUNIT_ASSERT_EQUAL(std::size_t{1},
                         c.accessLines(0, {"route=/v1/versions", "client=" + clientAddress(17)}));
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, c.accessLines(0, {"client=198.51.100.78"}));
  }

  void testRedisDownFailsOpenForLimitsClosedForLogins() {
    rapport::test::PrivateRedis redis;
    ServerProcess server(generousSettings({
        {"ratelimit.store", "redis"},
        {"redis.url", redis.url},
        {"ratelimit.requests", "3"},
    }));
    HttpClient client(server.port());
    const Account account = registerUser(client, "down");
    redis.stop();

    // Rate limit: open. More than ratelimit.requests pass, each as if its
    // window were fresh.
    for (int i = 0; i < 5; ++i) {
      const HttpResult ok = client.get("/v1/versions");
      E2E_ASSERT_STATUS(200, ok);
      CPPUNIT_ASSERT_EQUAL(std::int64_t{3}, headerInt(ok, "X-RateLimit-Remaining"));
    }
    // Login throttle: closed. No password is checked, right or wrong.
    for (const std::string& password : {account.password, std::string("wrong guess")}) {
      const HttpResult refused = login(client, account.email, password);
      const Json body = E2E_ASSERT_ERROR(503, refused);
      CPPUNIT_ASSERT_EQUAL(
          std::string("Service temporarily unavailable. Please try again shortly."),
          body["message"].asString());
      CPPUNIT_ASSERT_EQUAL(std::string("1"), refused.header("Retry-After"));
    }
    // Requests with a token still work (the token is checked in PostgreSQL).
    E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(account.token)));
    // Ten failing requests, one warning (at most one per 10 s).
    CPPUNIT_ASSERT_EQUAL_MESSAGE(server.log(), std::size_t{1},
                                 linesContaining(server.log(), "redis unavailable").size());
    CPPUNIT_ASSERT_EQUAL(0, server.stop());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(InstancesTest);
