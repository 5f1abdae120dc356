// What a key's use costs and leaves (decisions §9 and §15): each key has its
// own rate-limit counter (X-RateLimit-Remaining counts per key; one key's
// 429 with Retry-After leaves another key of the company and the owner's
// token untouched); unknown rk_ values are bad tokens, counted per client
// address until 429, while a real key from that address keeps its own
// count; last_used_at is null until the key is used and set within seconds
// after; an Idempotency-Key is kept per key (the same key replays its 201,
// another key or a user's token runs afresh).
//
// The rate-limit tests start their own server (5 requests an hour, counted
// away from the window's edge, as e2e.ratelimit does).
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/api_keys/ApiKeysSuite.h"
#include "e2e/common/Timely.h"

using namespace rapport::e2e;
using namespace rapport::e2e::apikeys;

namespace {

constexpr int kHour = 3600;
constexpr std::int64_t kRequests = 5;

ServerProcess::Settings limitedSettings() {
  return {{"modules.enabled", "contacts"},
          {"ratelimit.requests", std::to_string(kRequests)},
          {"ratelimit.window", std::to_string(kHour)}};
}

// An rk_ value no key has.
std::string unknownKey() {
  return "rk_" + randomHex(43);
}

}  // namespace

class KeysLimitsTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(KeysLimitsTest);
  CPPUNIT_TEST(testEachKeyHasItsOwnCounter);
  CPPUNIT_TEST(testUnknownKeysAreCountedPerAddress);
  CPPUNIT_TEST(testLastUsedAtIsSetAfterAUse);
  CPPUNIT_TEST(testIdempotencyKeyIsKeptPerKey);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testEachKeyHasItsOwnCounter() {
    ServerProcess server(limitedSettings());
    HttpClient client(server.port());
    const std::int64_t reset = awayFromWindowEdge(kHour);
    const Account owner = registerUser(client, "limits-keys");              // the address: 1
    const Json a = createKey(client, owner.token, {"contacts:read"}, "A");  // the owner: 1
    const Json b = createKey(client, owner.token, {"contacts:read"}, "B");  // the owner: 2

    for (std::int64_t i = 1; i <= kRequests; ++i) {
      const HttpResult ok = client.get("/v1/crm/contacts", bearer(secretOf(a)));
      E2E_ASSERT_DATA(200, ok);
      E2E_ASSERT_RATE_HEADERS(ok);
      CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(ok), kRequests, headerInt(ok, "X-RateLimit-Limit"));
      CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(ok), kRequests - i,
                                   headerInt(ok, "X-RateLimit-Remaining"));
      CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(ok), reset, headerInt(ok, "X-RateLimit-Reset"));
    }
    const HttpResult limited = client.get("/v1/crm/contacts", bearer(secretOf(a)));
    E2E_ASSERT_ERROR(429, limited);
    E2E_ASSERT_COMMON_HEADERS(limited);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), headerInt(limited, "X-RateLimit-Remaining"));
    const std::int64_t retryAfter = headerInt(limited, "Retry-After");
    CPPUNIT_ASSERT_MESSAGE(describe(limited), retryAfter >= 1 && retryAfter <= kHour);
    // On every route, /auth/me included.
    E2E_ASSERT_ERROR(429, client.get("/v1/auth/me", bearer(secretOf(a))));

    // Key B of the same company counts on its own...
    const HttpResult other = client.get("/v1/crm/contacts", bearer(secretOf(b)));
    E2E_ASSERT_DATA(200, other);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(other), kRequests - 1,
                                 headerInt(other, "X-RateLimit-Remaining"));
    // ... and so does the owner's token (two key creations so far).
    const HttpResult mine = client.get("/v1/crm/contacts", bearer(owner.token));
    E2E_ASSERT_DATA(200, mine);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(mine), kRequests - 3,
                                 headerInt(mine, "X-RateLimit-Remaining"));
    // A is still limited.
    E2E_ASSERT_ERROR(429, client.get("/v1/crm/contacts", bearer(secretOf(a))));
  }

  void testUnknownKeysAreCountedPerAddress() {
    ServerProcess server(limitedSettings());
    HttpClient client(server.port());
    awayFromWindowEdge(kHour);
    const Account owner = registerUser(client, "limits-guesser");
    const Json key = createKey(client, owner.token, {"contacts:read"});

    HttpClient guesser(server.port(), "127.0.0.1", "127.0.0.2");
    for (std::int64_t i = 1; i <= kRequests; ++i) {
      const HttpResult wrong = guesser.get("/v1/crm/contacts", bearer(unknownKey()));
      KEYS_ASSERT_401(wrong);
      CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(wrong), kRequests - i,
                                   headerInt(wrong, "X-RateLimit-Remaining"));
    }
    const HttpResult limited = guesser.get("/v1/crm/contacts", bearer(unknownKey()));
    E2E_ASSERT_ERROR(429, limited);
    CPPUNIT_ASSERT(headerInt(limited, "Retry-After") >= 1);
    // One count for the address: a bad user token from it is limited too.
    E2E_ASSERT_ERROR(429, guesser.get("/v1/crm/contacts", bearer("rpt_" + randomHex(43))));

    // A real key from that address has its own count.
    const HttpResult real = guesser.get("/v1/crm/contacts", bearer(secretOf(key)));
    E2E_ASSERT_DATA(200, real);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(real), kRequests - 1,
                                 headerInt(real, "X-RateLimit-Remaining"));
    // Another address guessing is still answered 401.
    HttpClient elsewhere(server.port(), "127.0.0.1", "127.0.0.3");
    KEYS_ASSERT_401(elsewhere.get("/v1/crm/contacts", bearer(unknownKey())));
  }

  void testLastUsedAtIsSetAfterAUse() {
    HttpClient client(keysServer().port());
    const Account owner = registerUser(client, "limits-last-used");
    const Json key = createKey(client, owner.token, {"contacts:read"});
    const Json idle = createKey(client, owner.token, {"contacts:read"}, "Idle");
    const auto lastUsed = [&](const Json& which) {
      return E2E_ASSERT_DATA(200, client.get(keyPath(which), bearer(owner.token)))["last_used_at"];
    };
    CPPUNIT_ASSERT(lastUsed(key).isNull());
    // The owner's own requests are not the key's use.
    E2E_ASSERT_DATA(200, client.get("/v1/crm/contacts", bearer(owner.token)));

    const std::int64_t before = unixNow();
    E2E_ASSERT_DATA(200, client.get("/v1/crm/contacts", bearer(secretOf(key))));
    Json seen;
    const bool set = waitUntil(
        [&] {
          seen = lastUsed(key);
          return !seen.isNull();
        },
        std::chrono::seconds(10));
    CPPUNIT_ASSERT_MESSAGE("last_used_at never set: " + seen.dump(), set);
    const std::int64_t used = E2E_ASSERT_ISO_UTC(seen);
    CPPUNIT_ASSERT_MESSAGE(seen.dump(), used >= before - 1 && used <= unixNow() + 1);
    // In the list as well; the unused key keeps null.
    const Json list = getBody(client, owner.token, kKeys)["data"];
    for (const Json& item : list.asArray()) {
      if (item["id"] == key["id"]) CPPUNIT_ASSERT_EQUAL(seen.dump(), item["last_used_at"].dump());
      if (item["id"] == idle["id"]) CPPUNIT_ASSERT(item["last_used_at"].isNull());
    }
  }

  void testIdempotencyKeyIsKeptPerKey() {
    HttpClient client(keysServer().port());
    const Account owner = registerUser(client, "limits-idempotency");
    const std::string a = secretOf(createKey(client, owner.token, {"contacts:write"}, "A"));
    const std::string b = secretOf(createKey(client, owner.token, {"contacts:write"}, "B"));
    const Headers once = {{"Idempotency-Key", "import-" + randomHex()}};
    const Json body = Json::object({{"name", "Ada Once"}});

    const HttpResult first = client.post("/v1/crm/contacts", body, bearer(a, once));
    const Json made = E2E_ASSERT_DATA(201, first);
    CPPUNIT_ASSERT(!first.hasHeader("Idempotent-Replayed"));
    const HttpResult again = client.post("/v1/crm/contacts", body, bearer(a, once));
    E2E_ASSERT_DATA(201, again);
    CPPUNIT_ASSERT_EQUAL(first.body, again.body);
    CPPUNIT_ASSERT_EQUAL(std::string("true"), again.header("Idempotent-Replayed"));

    // Another key, or the owner's token, with the same Idempotency-Key: a
    // request of their own.
    const HttpResult fromB = client.post("/v1/crm/contacts", body, bearer(b, once));
    const Json madeByB = E2E_ASSERT_DATA(201, fromB);
    CPPUNIT_ASSERT(!fromB.hasHeader("Idempotent-Replayed"));
    CPPUNIT_ASSERT(madeByB["id"] != made["id"]);
    const HttpResult fromOwner = client.post("/v1/crm/contacts", body, bearer(owner.token, once));
    CPPUNIT_ASSERT(E2E_ASSERT_DATA(201, fromOwner)["id"] != made["id"]);
    CPPUNIT_ASSERT(!fromOwner.hasHeader("Idempotent-Replayed"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(3),
                         getBody(client, owner.token, "/v1/crm/contacts")["meta"]["total"].asInt());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(KeysLimitsTest);
