// Rate limits (API Limits; decisions §9): a fixed window per token, or per
// client address without a token; 429 with Retry-After and the envelope.
// Each test starts its own server, so that counters start from zero. The
// counting tests use a window of an hour and start far enough from its end
// (awayFromWindowEdge: windows are aligned to the clock), so that no window
// ends while they count, wherever the run falls in the hour; the reset test
// uses 2 s.
#include <cppunit/extensions/HelperMacros.h>

#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>

#include "e2e/common/Api.h"
#include "e2e/common/Timely.h"

using namespace rapport::e2e;

namespace {

ServerProcess::Settings limited(int requests, int window) {
  return {{"ratelimit.requests", std::to_string(requests)},
          {"ratelimit.window", std::to_string(window)}};
}

constexpr int kHour = 3600;

}  // namespace

class RateLimitTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(RateLimitTest);
  CPPUNIT_TEST(testRemainingCountsDownThen429);
  CPPUNIT_TEST(testEveryTokenHasItsOwnCounter);
  CPPUNIT_TEST(testWithoutTokenCountedPerClientAddress);
  CPPUNIT_TEST(testCounterResetsAfterTheWindow);
  CPPUNIT_TEST(testCounterIsExactUnderConcurrency);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testRemainingCountsDownThen429() {
    ServerProcess server(limited(5, kHour));
    HttpClient client(server.port());
    const std::int64_t reset = awayFromWindowEdge(kHour);
    const Account account = registerUser(client, "countdown");

    for (int i = 1; i <= 5; ++i) {
      const HttpResult result = client.get("/v1/auth/me", bearer(account.token));
      E2E_ASSERT_STATUS(200, result);
      E2E_ASSERT_RATE_HEADERS(result);
      CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(result), std::int64_t(5),
                                   headerInt(result, "X-RateLimit-Limit"));
      CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(result), std::int64_t(5 - i),
                                   headerInt(result, "X-RateLimit-Remaining"));
      // Within one window the reset time stands still: the window's end, the
      // next multiple of an hour since the epoch (the alignment
      // awayFromWindowEdge relies on).
      CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(result), reset, headerInt(result, "X-RateLimit-Reset"));
    }

    const HttpResult limitedAnswer = client.get("/v1/auth/me", bearer(account.token));
    E2E_ASSERT_ERROR(429, limitedAnswer);
    CPPUNIT_ASSERT_EQUAL(std::string("Too Many Requests"), limitedAnswer.reason);
    E2E_ASSERT_COMMON_HEADERS(limitedAnswer);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(5), headerInt(limitedAnswer, "X-RateLimit-Limit"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), headerInt(limitedAnswer, "X-RateLimit-Remaining"));
    const std::int64_t retryAfter = headerInt(limitedAnswer, "Retry-After");
    CPPUNIT_ASSERT_MESSAGE(describe(limitedAnswer), retryAfter >= 1 && retryAfter <= kHour);
    // Retry-After points at the reset time.
    CPPUNIT_ASSERT_MESSAGE(describe(limitedAnswer), std::abs(unixNow() + retryAfter - reset) <= 2);

    // Still limited, on every route (404 and errors too), and never below 0.
    E2E_ASSERT_ERROR(429, client.get("/v1/user/companies", bearer(account.token)));
    const HttpResult missing = client.get("/v1/nope", bearer(account.token));
    E2E_ASSERT_ERROR(429, missing);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), headerInt(missing, "X-RateLimit-Remaining"));
  }

  void testEveryTokenHasItsOwnCounter() {
    ServerProcess server(limited(5, kHour));
    HttpClient client(server.port());
    awayFromWindowEdge(kHour);
    const Account alice = registerUser(client, "alice");  // address: 1 of 5
    const Account bob = registerUser(client, "bob");      // address: 2 of 5

    // alice: 2 requests, the second of which gives her a token for another company.
    const std::string second = createCompany(client, alice.token, "Limits Second");
    const std::string switched = switchContext(client, alice.token, second);
    for (int i = 3; i <= 5; ++i)
      E2E_ASSERT_STATUS(200, client.get("/v1/auth/me", bearer(alice.token)));
    E2E_ASSERT_ERROR(429, client.get("/v1/auth/me", bearer(alice.token)));

    // The switched token (same user, other company) counts on its own.
    const HttpResult switchedAnswer = client.get("/v1/auth/me", bearer(switched));
    E2E_ASSERT_STATUS(200, switchedAnswer);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(4), headerInt(switchedAnswer, "X-RateLimit-Remaining"));
    // So does another login of the same user.
    // (login is unauthenticated: address 3 of 5)
    const Json relogin = E2E_ASSERT_DATA(200, login(client, alice.email, alice.password));
    const HttpResult reloginAnswer = client.get("/v1/auth/me", bearer(relogin["token"].asString()));
    E2E_ASSERT_STATUS(200, reloginAnswer);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(4), headerInt(reloginAnswer, "X-RateLimit-Remaining"));

    // bob is untouched by alice's traffic.
    const HttpResult bobAnswer = client.get("/v1/auth/me", bearer(bob.token));
    E2E_ASSERT_STATUS(200, bobAnswer);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(4), headerInt(bobAnswer, "X-RateLimit-Remaining"));
    E2E_ASSERT_ERROR(429, client.get("/v1/auth/me", bearer(alice.token)));
  }

  // Without a token the client address is the key: 127.0.0.1 exhausted,
  // 127.0.0.2 still fresh, and a token is counted apart from its address.
  void testWithoutTokenCountedPerClientAddress() {
    ServerProcess server(limited(5, kHour));
    HttpClient first(server.port());
    awayFromWindowEdge(kHour);
    for (int i = 1; i <= 5; ++i) {
      const HttpResult result = first.get("/v1/versions");
      E2E_ASSERT_STATUS(200, result);
      CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(result), std::int64_t(5 - i),
                                   headerInt(result, "X-RateLimit-Remaining"));
    }
    const HttpResult limitedAnswer = first.get("/v1/versions");
    E2E_ASSERT_ERROR(429, limitedAnswer);
    CPPUNIT_ASSERT(headerInt(limitedAnswer, "Retry-After") >= 1);
    // Any unauthenticated path from that address: register and login too.
    E2E_ASSERT_ERROR(429, first.post("/v1/auth/login", Json::object()));

    HttpClient other(server.port(), "127.0.0.1", "127.0.0.2");
    const HttpResult fresh = other.get("/v1/versions");
    E2E_ASSERT_STATUS(200, fresh);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(4), headerInt(fresh, "X-RateLimit-Remaining"));
    const Account account = registerUser(other, "elsewhere");

    // The token's own counter applies, even from the exhausted address.
    const HttpResult withToken = first.get("/v1/auth/me", bearer(account.token));
    E2E_ASSERT_STATUS(200, withToken);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(4), headerInt(withToken, "X-RateLimit-Remaining"));
  }

  // window = 2 s: once limited, the next window lets requests through again
  // with a fresh count and a later reset time.
  void testCounterResetsAfterTheWindow() {
    ServerProcess server(limited(3, 2));
    HttpClient client(server.port());
    HttpResult limitedAnswer;
    for (int i = 0; i < 20 && limitedAnswer.status != 429; ++i) {
      limitedAnswer = client.get("/v1/versions");
    }
    E2E_ASSERT_ERROR(429, limitedAnswer);
    const std::int64_t reset = headerInt(limitedAnswer, "X-RateLimit-Reset");
    const std::int64_t retryAfter = headerInt(limitedAnswer, "Retry-After");
    CPPUNIT_ASSERT_MESSAGE(describe(limitedAnswer), retryAfter >= 1 && retryAfter <= 2);
    CPPUNIT_ASSERT_MESSAGE(describe(limitedAnswer), reset <= unixNow() + 2);

    // Wait for the announced reset time (bounded: the window is 2 s).
    std::this_thread::sleep_until(
        std::chrono::system_clock::time_point(std::chrono::seconds(reset)) +
        std::chrono::milliseconds(50));
    const HttpResult again = client.get("/v1/versions");
    E2E_ASSERT_STATUS(200, again);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(again), std::int64_t(2),
                                 headerInt(again, "X-RateLimit-Remaining"));
    CPPUNIT_ASSERT_MESSAGE(describe(again), headerInt(again, "X-RateLimit-Reset") > reset);
  }

  // 8 connections, 24 requests at once with one token, limit 5: exactly 5 pass.
  void testCounterIsExactUnderConcurrency() {
    ServerProcess server(limited(5, kHour));
    awayFromWindowEdge(kHour);
    const Account account = [&] {
      HttpClient client(server.port());
      return registerUser(client, "concurrent");
    }();
    std::atomic<int> passed{0}, limitedCount{0}, other{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&] {
        HttpClient client(server.port());
        for (int i = 0; i < 3; ++i) {
          const int status = client.get("/v1/auth/me", bearer(account.token)).status;
          (status == 200 ? passed : status == 429 ? limitedCount : other)++;
        }
      });
    }
    for (auto& t : threads) t.join();
    CPPUNIT_ASSERT_EQUAL(0, other.load());
    CPPUNIT_ASSERT_EQUAL(5, passed.load());
    CPPUNIT_ASSERT_EQUAL(19, limitedCount.load());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(RateLimitTest);
