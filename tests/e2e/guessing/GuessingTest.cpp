// Guessing limits through rapportd (docs/accounts.md "Guessing limits"):
// - login reserves an attempt before the password is checked, so 10 wrong
//   logins sent at once with auth.login.max_attempts = 5 give exactly five
//   401s and five 429s, however the workers interleave;
// - an account guessed from many addresses is slowed, not locked: past
//   auth.login.account_max_attempts failures one attempt per
//   auth.login.account_interval gets through from anywhere, the owner's
//   usual address is not slowed, and a right password from a new address
//   waits at most the interval; unknown e-mails are slowed the same way;
// - a public route (login, register, forgot-password) counts against the
//   client address even when a valid token comes with it.
// The client plays many addresses by binding its socket to 127.0.0.x (all of
// 127/8 is loopback on Linux).
#include <cppunit/extensions/HelperMacros.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "e2e/common/Api.h"
#include "e2e/common/Timely.h"

using namespace rapport::e2e;

namespace {

// A client connecting from 127.0.0.<host>.
std::unique_ptr<HttpClient> from(const ServerProcess& server, int host) {
  return std::make_unique<HttpClient>(server.port(), "127.0.0.1",
                                      "127.0.0." + std::to_string(host));
}

// Releases every waiting thread at once, when `parties` have arrived.
class StartLine {
 public:
  explicit StartLine(int parties) : waiting_(parties) {}
  void arriveAndWait() {
    std::unique_lock lock(mutex_);
    if (--waiting_ == 0) {
      released_.notify_all();
      return;
    }
    released_.wait(lock, [this] { return waiting_ == 0; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable released_;
  int waiting_;
};

std::int64_t retryAfter(const HttpResult& result) {
  return headerInt(result, "Retry-After");
}

}  // namespace

class GuessingTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(GuessingTest);
  CPPUNIT_TEST(testParallelGuessesAreReservedBeforeTheCheck);
  CPPUNIT_TEST(testAccountSlowedAcrossAddresses);
  CPPUNIT_TEST(testUnknownEmailSlowedAlike);
  CPPUNIT_TEST(testTokenDoesNotEscapeThePerAddressLimit);
  CPPUNIT_TEST_SUITE_END();

 public:
  // 10 connections, each connected first, then released together: each
  // sends one wrong password for the same e-mail from 127.0.0.1.
  void testParallelGuessesAreReservedBeforeTheCheck() {
    ServerProcess server(generousSettings({{"auth.login.max_attempts", "5"},
                                           {"auth.login.window", "600"},
                                           {"server.threads", "16"}}));
    HttpClient setup(server.port());
    const Account account = registerUser(setup, "parallel");
    constexpr int kGuessers = 10;
    std::vector<std::unique_ptr<HttpClient>> clients;
    for (int i = 0; i < kGuessers; ++i) {
      clients.push_back(std::make_unique<HttpClient>(server.port()));
      E2E_ASSERT_STATUS(200, clients.back()->get("/healthz"));  // connected before the start
    }
    StartLine start(kGuessers);
    std::vector<HttpResult> results(kGuessers);
    std::vector<std::thread> threads;
    for (int i = 0; i < kGuessers; ++i) {
      threads.emplace_back([&, i] {
        start.arriveAndWait();
        results[i] = login(*clients[i], account.email, "wrong guess " + std::to_string(i));
      });
    }
    for (auto& thread : threads) thread.join();
    int unauthorized = 0, throttled = 0;
    for (const HttpResult& result : results) {
      if (result.status == 401) {
        E2E_ASSERT_ERROR(401, result);
        ++unauthorized;
      } else {
        E2E_ASSERT_ERROR(429, result);
        CPPUNIT_ASSERT_MESSAGE(describe(result), retryAfter(result) >= 1);
        ++throttled;
      }
    }
    CPPUNIT_ASSERT_EQUAL(5, unauthorized);
    CPPUNIT_ASSERT_EQUAL(5, throttled);
    // The right password from that address is refused too, for the window.
    E2E_ASSERT_ERROR(429, login(setup, account.email, account.password));
  }

  // account_max_attempts = 3, account_interval = 6 s. An attempt too slow to
  // send its three logins within the interval is made again on a new
  // account.
  void testAccountSlowedAcrossAddresses() {
    ServerProcess server(slowingSettings());
    Account account;
    HttpResult newcomer;
    retryUntilTimely("three logins within the interval", 3,
                     [&](int) { return slowedWithinOneInterval(server, account, newcomer); });
    // The newcomer gets in after at most the interval it was told.
    const std::int64_t wait = retryAfter(newcomer);
    CPPUNIT_ASSERT_MESSAGE(describe(newcomer), wait >= 1 && wait <= kInterval);
    std::this_thread::sleep_for(std::chrono::seconds(wait));
    E2E_ASSERT_DATA(200, login(*from(server, 7), account.email, account.password));
    // Other accounts are not slowed.
    HttpClient other(server.port(), "127.0.0.1", "127.0.0.8");
    const Account bystander = registerUser(other, "bystander");
    E2E_ASSERT_DATA(200, login(*from(server, 9), bystander.email, bystander.password));
  }

  // A guesser learns nothing from the slowing: an e-mail nobody has is
  // slowed exactly like a real account.
  void testUnknownEmailSlowedAlike() {
    ServerProcess server(slowingSettings());
    const std::string ghost = uniqueEmail("ghost");
    for (int host = 2; host <= 5; ++host) {
      E2E_ASSERT_ERROR(401, login(*from(server, host), ghost, "guess " + std::to_string(host)));
    }
    const HttpResult slowed = login(*from(server, 6), ghost, "guess 6");
    E2E_ASSERT_ERROR(429, slowed);
    CPPUNIT_ASSERT_MESSAGE(describe(slowed), retryAfter(slowed) <= kInterval);
  }

  // ratelimit.requests = 4 per hour. The token's own counter is not used
  // on public routes: login, register and forgot-password with a valid
  // token all count against 127.0.0.3, and the fifth answers 429. The
  // requests are counted inside one window, wherever the run falls in it.
  void testTokenDoesNotEscapeThePerAddressLimit() {
    constexpr std::int64_t kHour = 3600;
    ServerProcess server(ServerProcess::Settings{{"ratelimit.requests", "4"},
                                                 {"ratelimit.window", std::to_string(kHour)}});
    awayFromWindowEdge(kHour);
    HttpClient elsewhere(server.port(), "127.0.0.1", "127.0.0.2");
    const Account account = registerUser(elsewhere, "tokenholder");
    HttpClient client(server.port(), "127.0.0.1", "127.0.0.3");
    client.setToken(account.token);

    const HttpResult first = login(client, account.email, "wrong password");
    E2E_ASSERT_ERROR(401, first);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(3), headerInt(first, "X-RateLimit-Remaining"));
    Account another;
    another.name = "Another";
    another.email = uniqueEmail("another");
    another.password = "a long enough passphrase " + randomHex(8);
    another.companyName = "Another Co";
    E2E_ASSERT_STATUS(201, client.post("/v1/auth/register", registrationBody(another)));
    E2E_ASSERT_STATUS(
        200, client.post("/v1/auth/forgot-password", Json::object({{"email", account.email}})));
    const HttpResult fourth = login(client, account.email, account.password);
    E2E_ASSERT_DATA(200, fourth);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), headerInt(fourth, "X-RateLimit-Remaining"));

    for (const HttpResult& limited :
         {login(client, account.email, account.password),
          client.post("/v1/auth/register", registrationBody(another)),
          client.post("/v1/auth/forgot-password", Json::object({{"email", account.email}}))}) {
      E2E_ASSERT_ERROR(429, limited);
      CPPUNIT_ASSERT_EQUAL(std::string("Too many requests."), limited.json()["message"].asString());
      CPPUNIT_ASSERT_MESSAGE(describe(limited), retryAfter(limited) >= 1);
      E2E_ASSERT_COMMON_HEADERS(limited);
    }
    // An authenticated route still counts against the token, even from the
    // exhausted address: its own counter, untouched by the calls above.
    const HttpResult me = client.get("/v1/auth/me");
    E2E_ASSERT_DATA(200, me);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(3), headerInt(me, "X-RateLimit-Remaining"));
  }

 private:
  static constexpr std::int64_t kInterval = 6;

  // A new account, guessed from four addresses (the fourth takes the one
  // attempt of the interval), then within the interval: a fifth guesser and
  // the right password from a new address wait (`newcomer` keeps that 429),
  // the owner's usual address does not. False when the three logins took
  // longer than the interval less a second: too slow to tell.
  static bool slowedWithinOneInterval(const ServerProcess& server, Account& account,
                                      HttpResult& newcomer) {
    {
      HttpClient owner(server.port());
      account = registerUser(owner, "slowed");
      // The owner's usual address: a login succeeded from it.
      E2E_ASSERT_DATA(200, login(owner, account.email, account.password));
    }
    // Three guessers on three addresses: each one failure, all answered.
    for (int host = 2; host <= 4; ++host) {
      E2E_ASSERT_ERROR(401,
                       login(*from(server, host), account.email, "guess " + std::to_string(host)));
    }
    // The fourth takes the one attempt of this interval; the fifth waits.
    E2E_ASSERT_ERROR(401, login(*from(server, 5), account.email, "guess 5"));
    const auto slotTaken = std::chrono::steady_clock::now();
    const HttpResult slowed = login(*from(server, 6), account.email, "guess 6");
    newcomer = login(*from(server, 7), account.email, account.password);
    const HttpResult owner = login(*from(server, 1), account.email, account.password);
    const bool withinInterval =
        std::chrono::steady_clock::now() - slotTaken < std::chrono::seconds(kInterval - 1);
    // The owner's usual address is not slowed...
    const Json data = E2E_ASSERT_DATA(200, owner);
    CPPUNIT_ASSERT_EQUAL(account.userId, data["user"]["id"].asString());
    if (!withinInterval) return false;
    E2E_ASSERT_ERROR(429, slowed);
    CPPUNIT_ASSERT_EQUAL(std::string("Too many login attempts. Please try again later."),
                         slowed.json()["message"].asString());
    CPPUNIT_ASSERT_MESSAGE(describe(slowed),
                           retryAfter(slowed) >= 1 && retryAfter(slowed) <= kInterval);
    // ...but the right password from a new address waits like everyone else.
    E2E_ASSERT_ERROR(429, newcomer);
    return true;
  }

  static ServerProcess::Settings slowingSettings() {
    return generousSettings({{"auth.login.max_attempts", "5"},
                             {"auth.login.account_max_attempts", "3"},
                             {"auth.login.account_window", "600"},
                             {"auth.login.account_interval", std::to_string(kInterval)}});
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(GuessingTest);
