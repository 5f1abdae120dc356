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
using rapport::host::accounts::social::StateClaim;

namespace {

PendingState newState(AccountsHarness& h, const std::string& provider, std::int64_t ttlSeconds) {
  PendingState state;
  state.stateHash = rapport::sha256Hex(rapport::randomToken(32));
  state.provider = provider;
  state.codeVerifierSealed = "rk1:sealed";
  state.redirectUri = "https://app.example/cb";
  state.createdAt = h.time.now();
  state.expiresAt = h.time.now() + ttlSeconds * kMicrosPerSecond;
  state.bindingHash = rapport::sha256Hex("binding");
  state.clientHash = rapport::sha256Hex("client");
  store::insertState(*h.db, state);
  return state;
}

// The client that asked for the states of newState(), without its cookie.
const StateClaim kSameClient{std::nullopt, rapport::sha256Hex("client")};

}  // namespace

class SocialStoreTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(SocialStoreTest);
  CPPUNIT_TEST(testStateIsConsumedOnce);
  CPPUNIT_TEST(testStateOfAnotherProviderIsLeftAlone);
  CPPUNIT_TEST(testStateExpires);
  CPPUNIT_TEST(testConcurrentCallbacksConsumeOnce);
  CPPUNIT_TEST(testStateIsBoundToItsClient);
  CPPUNIT_TEST(testExchangeCodeIsConsumedOnceAndExpires);
  CPPUNIT_TEST(testPurgeJobDeletesExpiredRows);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testStateIsConsumedOnce() {
    AccountsHarness h;
    const PendingState state = newState(h, "google", 600);
    const auto consumed =
        store::consumeState(*h.db, state.stateHash, "google", h.time.now(), kSameClient);
    CPPUNIT_ASSERT(consumed.has_value());
    CPPUNIT_ASSERT_EQUAL(state.codeVerifierSealed, consumed->codeVerifierSealed);
    CPPUNIT_ASSERT_EQUAL(state.redirectUri, consumed->redirectUri);
    CPPUNIT_ASSERT(
        !store::consumeState(*h.db, state.stateHash, "google", h.time.now(), kSameClient));
    CPPUNIT_ASSERT(!store::consumeState(*h.db, rapport::sha256Hex("unknown"), "google",
                                        h.time.now(), kSameClient));
  }

  void testStateOfAnotherProviderIsLeftAlone() {
    AccountsHarness h;
    const PendingState state = newState(h, "google", 600);
    CPPUNIT_ASSERT(
        !store::consumeState(*h.db, state.stateHash, "github", h.time.now(), kSameClient));
    CPPUNIT_ASSERT(
        store::consumeState(*h.db, state.stateHash, "google", h.time.now(), kSameClient));
  }

  void testStateExpires() {
    AccountsHarness h;
    const PendingState state = newState(h, "google", 600);
    h.time.advanceSeconds(600);  // exactly at expiry: gone
    CPPUNIT_ASSERT(
        !store::consumeState(*h.db, state.stateHash, "google", h.time.now(), kSameClient));
    const PendingState other = newState(h, "google", 600);
    h.time.advanceSeconds(599);
    CPPUNIT_ASSERT(
        store::consumeState(*h.db, other.stateHash, "google", h.time.now(), kSameClient));
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
            if (store::consumeState(*h.db, state.stateHash, "google", h.time.now(), kSameClient))
              ++winners;
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

  void testStateIsBoundToItsClient() {
    AccountsHarness h;
    const PendingState state = newState(h, "google", 600);
    const std::string otherClient = rapport::sha256Hex("other client");
    // Another address without the cookie, or any address with another
    // cookie: refused, and the state stays for its own client.
    CPPUNIT_ASSERT(!store::consumeState(*h.db, state.stateHash, "google", h.time.now(),
                                        {std::nullopt, otherClient}));
    CPPUNIT_ASSERT(!store::consumeState(*h.db, state.stateHash, "google", h.time.now(),
                                        {rapport::sha256Hex("forged"), state.clientHash}));
    // The cookie decides when present: the right one from another address.
    CPPUNIT_ASSERT(store::consumeState(*h.db, state.stateHash, "google", h.time.now(),
                                       {state.bindingHash, otherClient}));
    // A state stored without a binding (pending at the upgrade) never matches.
    h.db->exec(
        "INSERT INTO social_states (state_hash, provider, code_verifier_sealed, "
        "redirect_uri, created_at, expires_at) VALUES ('old', 'google', 'x', 'y', ?, ?)",
        {h.time.now(), h.time.now() + 600 * kMicrosPerSecond});
    CPPUNIT_ASSERT(!store::consumeState(*h.db, "old", "google", h.time.now(), kSameClient));
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
