// Revocation notices across instances (PostgreSQL; the SQLite run checks
// what holds there: no notices, prompt stop). Two TokenService objects on one
// database stand for two rapportd: A makes the changes, B has the tokens
// cached and a RevocationListener of its own. Waits are on real conditions
// (the cache entry gone, the listener's state) with deadlines.
#include <cppunit/extensions/HelperMacros.h>

#include <chrono>
#include <memory>

#include "TokensSupport.h"
#include "accounts/TokenService.h"
#include "accounts/revocation/RevocationListener.h"
#include "storage/DatabaseUrl.h"
#include "support/TestEnv.h"

namespace acc = rapport::host::accounts;
using namespace std::chrono_literals;
using rapport::test::tokens::ManualClock;
using rapport::test::tokens::waitUntil;

class RevocationListenerTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(RevocationListenerTest);
  CPPUNIT_TEST(testListeningStopsConfirmingHits);
  CPPUNIT_TEST(testNoticeFromAnotherConnectionDropsTheEntry);
  CPPUNIT_TEST(testChangesOnOneInstanceReachTheOther);
  CPPUNIT_TEST(testRefreshAndReuseReachTheOther);
  CPPUNIT_TEST(testRolledBackChangeSendsNoNotice);
  CPPUNIT_TEST(testKilledConnectionFallsBackThenReconnects);
  CPPUNIT_TEST(testStopIsPromptWhileTheDatabaseIsUnreachable);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override {
    url_ = rapport::test::freshDatabaseUrl("tokens_notice");
    db_ = rapport::test::tokens::openMigratedDatabase(url_);
    a_ = std::make_unique<acc::TokenService>(*db_, acc::TokenOptions{}, time_.clock());
    b_ = std::make_unique<acc::TokenService>(*db_, acc::TokenOptions{}, time_.clock());
    std::tie(userId_, companyId_) = rapport::test::tokens::seedOwner(*db_, time_.now(), "ann");
  }

  void tearDown() override {
    listener_.reset();
    a_.reset();
    b_.reset();
    db_.reset();
  }

  void testListeningStopsConfirmingHits() {
    if (!rapport::test::onPostgres()) {
      CPPUNIT_ASSERT(!b_->confirmsCacheHits());  // SQLite never confirms
      return;
    }
    CPPUNIT_ASSERT(b_->confirmsCacheHits());  // no listener yet: the old behaviour
    startListener();
    CPPUNIT_ASSERT(!b_->confirmsCacheHits());
    CPPUNIT_ASSERT_EQUAL(std::uint64_t{1}, listener_->connections());
    CPPUNIT_ASSERT(listener_->backendPid() > 0);
    listener_->stop();
    CPPUNIT_ASSERT(!listener_->listening());
    CPPUNIT_ASSERT(b_->confirmsCacheHits());
  }

  void testNoticeFromAnotherConnectionDropsTheEntry() {
    if (!rapport::test::onPostgres()) return;
    startListener();
    const acc::IssuedToken t = a_->issue(userId_, companyId_, false);
    CPPUNIT_ASSERT(b_->authenticate(t.token));
    // Revoked behind B's back without a notice: a hit costs no query, so B
    // does not see it (the cache TTL is the last line of defence).
    db_->exec("UPDATE tokens SET revoked_at = ? WHERE id = ?", {time_.now(), t.tokenId});
    CPPUNIT_ASSERT(b_->authenticate(t.token));
    // The notice, from another connection, drops the entry.
    db_->query("SELECT pg_notify('rapport_auth', ?)::text AS sent", {"t:" + t.tokenId});
    CPPUNIT_ASSERT(waitUntil([&] { return b_->cachedCount() == 0; }, 2s));
    CPPUNIT_ASSERT(!b_->authenticate(t.token));
    // Unknown payloads are ignored.
    const acc::IssuedToken u = a_->issue(userId_, companyId_, false);
    CPPUNIT_ASSERT(b_->authenticate(u.token));
    db_->query("SELECT pg_notify('rapport_auth', ?)::text AS sent", {"x:whatever"});
    db_->query("SELECT pg_notify('rapport_auth', ?)::text AS sent", {""});
    db_->query("SELECT pg_notify('other_channel', ?)::text AS sent", {"u:" + userId_});
    db_->query("SELECT pg_notify('rapport_auth', ?)::text AS sent", {"u:" + userId_});
    CPPUNIT_ASSERT(waitUntil([&] { return b_->cachedCount() == 0; }, 2s));
  }

  void testChangesOnOneInstanceReachTheOther() {
    if (!rapport::test::onPostgres()) return;
    startListener();
    const auto [ignored, second] =
        rapport::test::tokens::seedOwner(*db_, time_.now(), "second", userId_);
    const acc::IssuedToken logout = a_->issue(userId_, companyId_, false);
    const acc::IssuedToken role = a_->issue(userId_, companyId_, false);
    const acc::IssuedToken removed = a_->issue(userId_, second, false);
    for (const auto* t : {&logout, &role, &removed}) CPPUNIT_ASSERT(b_->authenticate(t->token));

    // Logout on A.
    CPPUNIT_ASSERT(a_->revoke(logout.tokenId));
    CPPUNIT_ASSERT(waitUntil([&] { return !b_->cachedUser(logout.token); }, 1s));
    CPPUNIT_ASSERT(!b_->authenticate(logout.token));

    // Role changed on A, in its transaction.
    db_->transaction(companyId_, [&](rapport::Tx& tx) {
      tx.exec("UPDATE memberships SET role = ? WHERE company_id = ? AND user_id = ?",
              {"member", companyId_, userId_});
      a_->invalidateUser(tx, userId_);
    });
    CPPUNIT_ASSERT(waitUntil([&] { return b_->cachedCount() == 0; }, 1s));
    CPPUNIT_ASSERT(b_->authenticate(role.token)->role == rapport::Role::Member);
    CPPUNIT_ASSERT(b_->authenticate(removed.token));

    // Member removed from the second company on A.
    db_->transaction(second, [&](rapport::Tx& tx) {
      tx.exec("DELETE FROM memberships WHERE company_id = ? AND user_id = ?", {second, userId_});
      a_->revokeMembership(tx, userId_, second);
    });
    CPPUNIT_ASSERT(waitUntil([&] { return !b_->cachedUser(removed.token); }, 1s));
    CPPUNIT_ASSERT(!b_->authenticate(removed.token));
    CPPUNIT_ASSERT(b_->authenticate(role.token));

    // Password change on A: every other token of the user.
    const acc::IssuedToken keep = a_->issue(userId_, companyId_, false);
    CPPUNIT_ASSERT(b_->authenticate(keep.token));
    a_->revokeAllForUser(userId_, keep.tokenId);
    CPPUNIT_ASSERT(waitUntil([&] { return b_->cachedCount() == 0; }, 1s));
    CPPUNIT_ASSERT(!b_->authenticate(role.token));
    CPPUNIT_ASSERT(b_->authenticate(keep.token));

    // A profile change outside a transaction (autocommit notice).
    db_->exec("UPDATE users SET name = ? WHERE id = ?", {"Renamed", userId_});
    a_->invalidateUser(userId_);
    CPPUNIT_ASSERT(waitUntil([&] { return !b_->cachedUser(keep.token); }, 1s));
    CPPUNIT_ASSERT(b_->authenticate(keep.token));
    CPPUNIT_ASSERT_EQUAL(std::string("Renamed"), b_->cachedUser(keep.token)->name);
  }

  void testRefreshAndReuseReachTheOther() {
    if (!rapport::test::onPostgres()) return;
    startListener();
    const acc::IssuedToken old = a_->issue(userId_, companyId_, false);
    CPPUNIT_ASSERT(b_->authenticate(old.token));
    // A refresh on A drops B's entry: B re-reads the grace expiry.
    const auto fresh = a_->refresh(old.token);
    CPPUNIT_ASSERT(fresh);
    CPPUNIT_ASSERT(waitUntil([&] { return !b_->cachedUser(old.token); }, 1s));
    CPPUNIT_ASSERT(b_->authenticate(old.token));
    CPPUNIT_ASSERT(b_->authenticate(fresh->token));
    time_.advanceSeconds(60);
    CPPUNIT_ASSERT(!b_->authenticate(old.token));
    // Reuse on A ends the family on B too.
    const acc::IssuedToken next = a_->issue(userId_, companyId_, false);
    const auto nextFresh = a_->refresh(next.token);
    CPPUNIT_ASSERT(b_->authenticate(next.token));
    CPPUNIT_ASSERT(b_->authenticate(nextFresh->token));
    CPPUNIT_ASSERT(!a_->refresh(next.token));
    CPPUNIT_ASSERT(waitUntil([&] { return !b_->cachedUser(nextFresh->token); }, 1s));
    CPPUNIT_ASSERT(!b_->authenticate(nextFresh->token));
    CPPUNIT_ASSERT(!b_->authenticate(next.token));
  }

  void testRolledBackChangeSendsNoNotice() {
    if (!rapport::test::onPostgres()) return;
    startListener();
    const auto [bob, bobCompany] = rapport::test::tokens::seedOwner(*db_, time_.now(), "bob");
    const acc::IssuedToken ann = a_->issue(userId_, companyId_, false);
    const acc::IssuedToken bobs = a_->issue(bob, bobCompany, false);
    CPPUNIT_ASSERT(b_->authenticate(ann.token));
    CPPUNIT_ASSERT(b_->authenticate(bobs.token));
    try {
      db_->transaction(companyId_, [&](rapport::Tx& tx) {
        a_->revokeMembership(tx, userId_, companyId_);
        throw std::runtime_error("changed my mind");
      });
    } catch (const std::runtime_error&) {
    }
    // A later notice (for Bob) is delivered after any earlier one: once it
    // arrived, Ann's entry has survived every notice there was.
    a_->invalidateUser(bob);
    CPPUNIT_ASSERT(waitUntil([&] { return !b_->cachedUser(bobs.token); }, 1s));
    CPPUNIT_ASSERT(b_->cachedUser(ann.token));
    CPPUNIT_ASSERT(b_->authenticate(ann.token));
  }

  void testKilledConnectionFallsBackThenReconnects() {
    if (!rapport::test::onPostgres()) return;
    acc::RevocationListenerOptions options;
    options.minBackoff = 1500ms;  // a window to observe the fallback in
    startListener(options);
    const acc::IssuedToken t1 = a_->issue(userId_, companyId_, false);
    const acc::IssuedToken t2 = a_->issue(userId_, companyId_, false);
    CPPUNIT_ASSERT(b_->authenticate(t1.token));
    const int pid = listener_->backendPid();
    db_->query("SELECT pg_terminate_backend(CAST(? AS INTEGER)) AS done", {pid});
    CPPUNIT_ASSERT(waitUntil([&] { return !listener_->listening(); }, 2s));
    // Fallback: every hit is confirmed in the database.
    CPPUNIT_ASSERT(b_->confirmsCacheHits());
    db_->exec("UPDATE tokens SET revoked_at = ? WHERE id = ?", {time_.now(), t1.tokenId});
    CPPUNIT_ASSERT(!b_->authenticate(t1.token));
    // What is cached meanwhile (its role may go stale: role changes are not
    // confirmed per hit) is dropped when the listener is back.
    CPPUNIT_ASSERT(b_->authenticate(t2.token));
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, b_->cachedCount());
    db_->exec("UPDATE memberships SET role = ? WHERE user_id = ?", {"admin", userId_});
    CPPUNIT_ASSERT(b_->authenticate(t2.token)->role == rapport::Role::Owner);
    CPPUNIT_ASSERT(listener_->waitUntilListening(10s));
    CPPUNIT_ASSERT_EQUAL(std::uint64_t{2}, listener_->connections());
    CPPUNIT_ASSERT(listener_->backendPid() != pid);
    CPPUNIT_ASSERT(!b_->confirmsCacheHits());
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, b_->cachedCount());
    CPPUNIT_ASSERT(b_->authenticate(t2.token)->role == rapport::Role::Admin);
    // And notices flow again.
    a_->revoke(t2.tokenId);
    CPPUNIT_ASSERT(waitUntil([&] { return b_->cachedCount() == 0; }, 1s));
    CPPUNIT_ASSERT(!b_->authenticate(t2.token));
  }

  void testStopIsPromptWhileTheDatabaseIsUnreachable() {
    // TEST-NET-1 (RFC 5737) answers nothing: the connection attempt hangs
    // (or fails at once), and stop() must not wait for it.
    acc::RevocationListenerOptions options;
    options.connectTimeout = 30s;
    listener_ = std::make_unique<acc::RevocationListener>(
        "host=192.0.2.1 port=5432 user=nobody dbname=none", *b_, options);
    listener_->start();
    CPPUNIT_ASSERT(!listener_->waitUntilListening(300ms));
    const auto before = std::chrono::steady_clock::now();
    listener_->stop();
    CPPUNIT_ASSERT(std::chrono::steady_clock::now() - before < 1s);
    CPPUNIT_ASSERT(!listener_->listening());
    CPPUNIT_ASSERT_EQUAL(rapport::test::onPostgres(), b_->confirmsCacheHits());
  }

 private:
  void startListener(acc::RevocationListenerOptions options = {}) {
    listener_ = std::make_unique<acc::RevocationListener>(
        rapport::host::parseDatabaseUrl(url_).connectionString, *b_, options);
    listener_->start();
    CPPUNIT_ASSERT(listener_->waitUntilListening(5s));
  }

  ManualClock time_;
  std::string url_;
  std::unique_ptr<rapport::host::SqlDatabase> db_;
  std::unique_ptr<acc::TokenService> a_;
  std::unique_ptr<acc::TokenService> b_;
  std::unique_ptr<acc::RevocationListener> listener_;
  std::string userId_;
  std::string companyId_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(RevocationListenerTest);
