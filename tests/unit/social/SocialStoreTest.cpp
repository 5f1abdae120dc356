// The single-use rows of social login on a real database of each engine:
// a state is consumed once (not by another provider, not after expiry, and
// by exactly one of many concurrent callbacks), exchange codes likewise, and
// the "social-purge" job deletes what expired. Built on the accounts harness
// (its hand-moved clock and fresh migrated database).
#include <cppunit/extensions/HelperMacros.h>

#include <atomic>
#include <thread>
#include <vector>

#include "AccountsHarness.h"
#include "accounts/Clock.h"
#include "accounts/social/SocialStore.h"
#include "rapport/ids.h"

using rapport::host::accounts::kMicrosPerSecond;
using rapport::test::accounts::AccountsHarness;
namespace store = rapport::host::accounts::social::store;
using rapport::host::accounts::social::PendingState;

namespace {

PendingState newState(AccountsHarness& h, const std::string& provider, std::int64_t ttlSeconds) {
  PendingState state;
  state.stateHash = rapport::sha256Hex(rapport::randomToken(32));
  state.provider = provider;
  state.codeVerifierSealed = "rk1:sealed";
  state.redirectUri = "https://app.example/cb";
  state.createdAt = h.time.now();
  state.expiresAt = h.time.now() + ttlSeconds * kMicrosPerSecond;
  store::insertState(*h.db, state);
  return state;
}

}  // namespace

class SocialStoreTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(SocialStoreTest);
  CPPUNIT_TEST(testStateIsConsumedOnce);
  CPPUNIT_TEST(testStateOfAnotherProviderIsLeftAlone);
  CPPUNIT_TEST(testStateExpires);
  CPPUNIT_TEST(testConcurrentCallbacksConsumeOnce);
  CPPUNIT_TEST(testExchangeCodeIsConsumedOnceAndExpires);
  CPPUNIT_TEST(testPurgeJobDeletesExpiredRows);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testStateIsConsumedOnce() {
    AccountsHarness h;
    const PendingState state = newState(h, "google", 600);
    const auto consumed = store::consumeState(*h.db, state.stateHash, "google", h.time.now());
    CPPUNIT_ASSERT(consumed.has_value());
    CPPUNIT_ASSERT_EQUAL(state.codeVerifierSealed, consumed->codeVerifierSealed);
    CPPUNIT_ASSERT_EQUAL(state.redirectUri, consumed->redirectUri);
    CPPUNIT_ASSERT(!store::consumeState(*h.db, state.stateHash, "google", h.time.now()));
    CPPUNIT_ASSERT(
        !store::consumeState(*h.db, rapport::sha256Hex("unknown"), "google", h.time.now()));
  }

  void testStateOfAnotherProviderIsLeftAlone() {
    AccountsHarness h;
    const PendingState state = newState(h, "google", 600);
    CPPUNIT_ASSERT(!store::consumeState(*h.db, state.stateHash, "github", h.time.now()));
    CPPUNIT_ASSERT(store::consumeState(*h.db, state.stateHash, "google", h.time.now()));
  }

  void testStateExpires() {
    AccountsHarness h;
    const PendingState state = newState(h, "google", 600);
    h.time.advanceSeconds(600);  // exactly at expiry: gone
    CPPUNIT_ASSERT(!store::consumeState(*h.db, state.stateHash, "google", h.time.now()));
    const PendingState other = newState(h, "google", 600);
    h.time.advanceSeconds(599);
    CPPUNIT_ASSERT(store::consumeState(*h.db, other.stateHash, "google", h.time.now()));
  }

  void testConcurrentCallbacksConsumeOnce() {
    AccountsHarness h;
    for (int round = 0; round < 5; ++round) {
      const PendingState state = newState(h, "google", 600);
      std::atomic<int> winners{0};
      std::atomic<int> failures{0};
      std::vector<std::thread> threads;
      for (int i = 0; i < 6; ++i) {
        threads.emplace_back([&] {
          try {
            if (store::consumeState(*h.db, state.stateHash, "google", h.time.now())) ++winners;
          } catch (const std::exception&) {
            ++failures;
          }
        });
      }
      for (auto& t : threads) t.join();
      CPPUNIT_ASSERT_EQUAL(0, failures.load());
      CPPUNIT_ASSERT_EQUAL(1, winners.load());
    }
  }

  void testExchangeCodeIsConsumedOnceAndExpires() {
    AccountsHarness h;
    const auto user = h.registerUser("ann@example.com");
    const std::string hash = rapport::sha256Hex(rapport::randomToken(32));
    store::insertExchangeCode(*h.db, hash, "google", user.userId, h.time.now(),
                              h.time.now() + 60 * kMicrosPerSecond);
    const auto first = store::consumeExchangeCode(*h.db, hash, h.time.now());
    CPPUNIT_ASSERT(first.has_value());
    CPPUNIT_ASSERT_EQUAL(user.userId, *first);
    CPPUNIT_ASSERT(!store::consumeExchangeCode(*h.db, hash, h.time.now()));
    const std::string late = rapport::sha256Hex(rapport::randomToken(32));
    store::insertExchangeCode(*h.db, late, "google", user.userId, h.time.now(),
                              h.time.now() + 60 * kMicrosPerSecond);
    h.time.advanceSeconds(60);
    CPPUNIT_ASSERT(!store::consumeExchangeCode(*h.db, late, h.time.now()));
  }

  void testPurgeJobDeletesExpiredRows() {
    AccountsHarness h;
    const auto user = h.registerUser("bob@example.com");
    newState(h, "google", 600);
    const PendingState shortLived = newState(h, "github", 30);
    store::insertExchangeCode(*h.db, rapport::sha256Hex("a"), "google", user.userId, h.time.now(),
                              h.time.now() + 60 * kMicrosPerSecond);
    h.time.advanceSeconds(120);
    h.runJob("social-purge");
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), h.count("SELECT COUNT(*) AS n FROM social_states"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0),
                         h.count("SELECT COUNT(*) AS n FROM social_states WHERE state_hash = ?",
                                 {shortLived.stateHash}));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0),
                         h.count("SELECT COUNT(*) AS n FROM social_exchange_codes"));
    h.time.advanceSeconds(600);
    h.runJob("social-purge");
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), h.count("SELECT COUNT(*) AS n FROM social_states"));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(SocialStoreTest);
