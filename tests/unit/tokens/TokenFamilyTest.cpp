// Token families on a real database (both engines): a token is refreshed
// once, a second refresh of it (reuse) revokes its whole family, two
// concurrent refreshes issue one token, the session cap (max_session_age)
// clips and then refuses, a context switch stays in the family (never to
// the token's own company, never with a refreshed token: that is reuse), and
// the migration gives existing tokens a family of their own.
#include <cppunit/extensions/HelperMacros.h>

#include <latch>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "TokensSupport.h"
#include "accounts/TokenService.h"
#include "rapport/ids.h"
#include "storage/Migrator.h"
#include "support/TestEnv.h"

namespace acc = rapport::host::accounts;
using rapport::test::tokens::countRows;
using rapport::test::tokens::ManualClock;

class TokenFamilyTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(TokenFamilyTest);
  CPPUNIT_TEST(testLoginStartsAFamily);
  CPPUNIT_TEST(testRefreshMarksTheTokenAndStaysInTheFamily);
  CPPUNIT_TEST(testSecondRefreshIsReuseAndRevokesTheFamily);
  CPPUNIT_TEST(testReuseAfterTheGraceIsStillDetected);
  CPPUNIT_TEST(testReuseOfAnOlderTokenInAChain);
  CPPUNIT_TEST(testConcurrentDoubleRefreshIssuesOneToken);
  CPPUNIT_TEST(testRefreshRefusals);
  CPPUNIT_TEST(testSessionCapClipsThenRefuses);
  CPPUNIT_TEST(testSessionCapShorterThanTheTokenTtl);
  CPPUNIT_TEST(testContextSwitchStaysInTheFamily);
  CPPUNIT_TEST(testContextSwitchToItsOwnCompanyIssuesNothing);
  CPPUNIT_TEST(testContextSwitchWithARefreshedTokenIsReuse);
  CPPUNIT_TEST(testARefusedSwitchWritesNothing);
  CPPUNIT_TEST(testReuseInASwitchedChainEndsTheWholeLogin);
  CPPUNIT_TEST(testContextSwitchRespectsTheCap);
  CPPUNIT_TEST(testMigrationGivesExistingTokensAFamily);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override {
    db_ = rapport::test::tokens::openMigratedDatabase();
    tokens_ = makeService();
    std::tie(userId_, companyId_) = rapport::test::tokens::seedOwner(*db_, time_.now(), "ann");
  }

  void tearDown() override {
    tokens_.reset();
    db_.reset();
  }

  void testLoginStartsAFamily() {
    const acc::IssuedToken a = tokens_->issue(userId_, companyId_, false);
    const acc::IssuedToken b = tokens_->issue(userId_, companyId_, false);
    CPPUNIT_ASSERT_EQUAL(a.tokenId, a.familyId);
    CPPUNIT_ASSERT_EQUAL(b.tokenId, b.familyId);
    const rapport::Row row = db_->query("SELECT * FROM tokens WHERE id = ?", {a.tokenId}).front();
    CPPUNIT_ASSERT_EQUAL(a.tokenId, row.str("family_id"));
    CPPUNIT_ASSERT_EQUAL(time_.now(), row.i64("session_started_at"));
    CPPUNIT_ASSERT(row.isNull("refreshed_at"));
    CPPUNIT_ASSERT(row.isNull("replaced_by"));
  }

  void testRefreshMarksTheTokenAndStaysInTheFamily() {
    const acc::IssuedToken old = tokens_->issue(userId_, companyId_, false);
    const std::int64_t started = time_.now();
    time_.advanceSeconds(100);
    const auto fresh = tokens_->refresh(old.token);
    CPPUNIT_ASSERT(fresh);
    CPPUNIT_ASSERT_EQUAL(old.familyId, fresh->familyId);
    CPPUNIT_ASSERT(fresh->tokenId != old.tokenId);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3600}, fresh->expiresIn);
    const rapport::Row marked =
        db_->query("SELECT * FROM tokens WHERE id = ?", {old.tokenId}).front();
    CPPUNIT_ASSERT_EQUAL(time_.now(), marked.i64("refreshed_at"));
    CPPUNIT_ASSERT_EQUAL(fresh->tokenId, marked.str("replaced_by"));
    CPPUNIT_ASSERT_EQUAL(time_.now() + 60 * acc::kMicrosPerSecond, marked.i64("expires_at"));
    CPPUNIT_ASSERT(marked.isNull("revoked_at"));
    const rapport::Row next =
        db_->query("SELECT * FROM tokens WHERE id = ?", {fresh->tokenId}).front();
    CPPUNIT_ASSERT_EQUAL(old.familyId, next.str("family_id"));
    CPPUNIT_ASSERT_EQUAL(started, next.i64("session_started_at"));
    CPPUNIT_ASSERT(next.isNull("refreshed_at"));
    // The grace: the old token still authenticates; the new one refreshes on.
    CPPUNIT_ASSERT(tokens_->authenticate(old.token));
    CPPUNIT_ASSERT(tokens_->authenticate(fresh->token));
    const auto third = tokens_->refresh(fresh->token);
    CPPUNIT_ASSERT(third);
    CPPUNIT_ASSERT_EQUAL(old.familyId, third->familyId);
  }

  void testSecondRefreshIsReuseAndRevokesTheFamily() {
    const acc::IssuedToken old = tokens_->issue(userId_, companyId_, false);
    const acc::IssuedToken otherLogin = tokens_->issue(userId_, companyId_, false);
    const auto fresh = tokens_->refresh(old.token);
    CPPUNIT_ASSERT(fresh);
    for (const std::string* t : {&old.token, &fresh->token, &otherLogin.token}) {
      CPPUNIT_ASSERT(tokens_->authenticate(*t));  // cached, the old one in its grace
    }
    time_.advanceSeconds(10);
    // Reuse inside the grace: 401, and the whole login is over.
    CPPUNIT_ASSERT(!tokens_->refresh(old.token));
    CPPUNIT_ASSERT(!tokens_->authenticate(old.token));
    CPPUNIT_ASSERT(!tokens_->authenticate(fresh->token));
    CPPUNIT_ASSERT(!tokens_->refresh(fresh->token));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2},
                         countRows(*db_,
                                   "SELECT COUNT(*) AS n FROM tokens WHERE family_id = ? AND "
                                   "revoked_at = ?",
                                   {old.familyId, time_.now()}));
    // Another login of the same user is another family: untouched.
    CPPUNIT_ASSERT(tokens_->authenticate(otherLogin.token));
    CPPUNIT_ASSERT(tokens_->refresh(otherLogin.token));
    // A second instance, reading only the database, agrees.
    auto other = makeService();
    CPPUNIT_ASSERT(!other->authenticate(old.token));
    CPPUNIT_ASSERT(!other->authenticate(fresh->token));
  }

  void testReuseAfterTheGraceIsStillDetected() {
    const acc::IssuedToken old = tokens_->issue(userId_, companyId_, false);
    const auto fresh = tokens_->refresh(old.token);
    CPPUNIT_ASSERT(fresh);
    time_.advanceSeconds(600);  // the old token expired long ago
    CPPUNIT_ASSERT(!tokens_->authenticate(old.token));
    CPPUNIT_ASSERT(tokens_->authenticate(fresh->token));
    CPPUNIT_ASSERT(!tokens_->refresh(old.token));
    CPPUNIT_ASSERT(!tokens_->authenticate(fresh->token));
  }

  void testReuseOfAnOlderTokenInAChain() {
    const acc::IssuedToken t0 = tokens_->issue(userId_, companyId_, true);
    const auto t1 = tokens_->refresh(t0.token);
    time_.advanceSeconds(120);
    const auto t2 = tokens_->refresh(t1->token);
    time_.advanceSeconds(120);
    const auto t3 = tokens_->refresh(t2->token);
    CPPUNIT_ASSERT(t1 && t2 && t3);
    CPPUNIT_ASSERT(tokens_->authenticate(t3->token));
    CPPUNIT_ASSERT(!tokens_->refresh(t1->token));
    CPPUNIT_ASSERT(!tokens_->authenticate(t3->token));
    CPPUNIT_ASSERT(!tokens_->refresh(t3->token));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0},
                         countRows(*db_,
                                   "SELECT COUNT(*) AS n FROM tokens WHERE family_id = ? AND "
                                   "revoked_at IS NULL",
                                   {t0.familyId}));
  }

  void testConcurrentDoubleRefreshIssuesOneToken() {
    // Two refreshes of one token at the same moment: the conditional update
    // lets exactly one issue a token. The other finds the token refreshed:
    // that is reuse (clients must share one refresh, API "Renewal"), so the
    // family ends, the token just issued included.
    for (int round = 0; round < 12; ++round) {
      const acc::IssuedToken t = tokens_->issue(userId_, companyId_, false);
      std::optional<acc::IssuedToken> results[2];
      std::latch ready(2);
      std::vector<std::thread> threads;
      for (int i = 0; i < 2; ++i) {
        threads.emplace_back([&, i] {
          ready.arrive_and_wait();
          results[i] = tokens_->refresh(t.token);
        });
      }
      for (auto& thread : threads) thread.join();
      CPPUNIT_ASSERT_EQUAL(1, int(results[0].has_value()) + int(results[1].has_value()));
      const acc::IssuedToken& winner = results[0] ? *results[0] : *results[1];
      CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, countRows(*db_,
                                                      "SELECT COUNT(*) AS n FROM tokens WHERE "
                                                      "family_id = ?",
                                                      {t.familyId}));
      CPPUNIT_ASSERT(!tokens_->authenticate(winner.token));
      CPPUNIT_ASSERT(!tokens_->authenticate(t.token));
    }
  }

  void testRefreshRefusals() {
    // Unknown, malformed, expired, revoked: 401 and nothing written.
    CPPUNIT_ASSERT(!tokens_->refresh("rpt_" + rapport::randomToken(32)));
    CPPUNIT_ASSERT(!tokens_->refresh("rpt_short"));
    CPPUNIT_ASSERT(!tokens_->refresh(""));
    const acc::IssuedToken expired = tokens_->issue(userId_, companyId_, false);
    const acc::IssuedToken revoked = tokens_->issue(userId_, companyId_, false);
    tokens_->revoke(revoked.tokenId);
    CPPUNIT_ASSERT(!tokens_->refresh(revoked.token));
    // A member removed, a user disabled: the token is not refreshed (and not
    // marked, so it is no reuse either).
    const auto [bob, bobCompany] = rapport::test::tokens::seedOwner(*db_, time_.now(), "bob");
    const acc::IssuedToken removed = tokens_->issue(bob, bobCompany, false);
    db_->exec("DELETE FROM memberships WHERE user_id = ?", {bob});
    CPPUNIT_ASSERT(!tokens_->refresh(removed.token));
    const auto [cid, cidCompany] = rapport::test::tokens::seedOwner(*db_, time_.now(), "cid");
    const acc::IssuedToken disabled = tokens_->issue(cid, cidCompany, false);
    db_->exec("UPDATE users SET disabled = ? WHERE id = ?", {true, cid});
    CPPUNIT_ASSERT(!tokens_->refresh(disabled.token));
    db_->exec("UPDATE users SET disabled = ? WHERE id = ?", {false, cid});
    CPPUNIT_ASSERT(tokens_->refresh(disabled.token));  // not marked by the refusal
    time_.advanceSeconds(3600);
    CPPUNIT_ASSERT(!tokens_->refresh(expired.token));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1},
                         countRows(*db_,
                                   "SELECT COUNT(*) AS n FROM tokens WHERE refreshed_at "
                                   "IS NOT NULL"));
  }

  void testSessionCapClipsThenRefuses() {
    tokens_ = makeService(3 * 3600);  // a login lasts 3 hours
    const std::int64_t start = time_.now();
    const std::int64_t cap = start + 3 * 3600 * acc::kMicrosPerSecond;
    const acc::IssuedToken t0 = tokens_->issue(userId_, companyId_, false);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3600}, t0.expiresIn);
    time_.advanceSeconds(3500);
    const auto t1 = tokens_->refresh(t0.token);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3600}, t1->expiresIn);
    time_.advanceSeconds(3500);
    const auto t2 = tokens_->refresh(t1->token);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3600}, t2->expiresIn);
    time_.advanceSeconds(3500);  // 10500 s in: 300 s left
    const auto t3 = tokens_->refresh(t2->token);
    CPPUNIT_ASSERT(t3);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{300}, t3->expiresIn);
    CPPUNIT_ASSERT_EQUAL(cap, t3->expiresAt);
    CPPUNIT_ASSERT_EQUAL(cap,
                         db_->query("SELECT expires_at FROM tokens WHERE id = ?", {t3->tokenId})
                             .front()
                             .i64("expires_at"));
    // Less than a second left: refresh answers 401, the token lives its end.
    time_.advanceMicros(299 * acc::kMicrosPerSecond + 500000);
    CPPUNIT_ASSERT(!tokens_->refresh(t3->token));
    CPPUNIT_ASSERT(tokens_->authenticate(t3->token));
    CPPUNIT_ASSERT(db_->query("SELECT refreshed_at FROM tokens WHERE id = ?", {t3->tokenId})
                       .front()
                       .isNull("refreshed_at"));
    time_.advanceMicros(500000);
    CPPUNIT_ASSERT(!tokens_->authenticate(t3->token));
    CPPUNIT_ASSERT(!tokens_->refresh(t3->token));
    // A new login starts a new session.
    const acc::IssuedToken again = tokens_->issue(userId_, companyId_, false);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3600}, again.expiresIn);
  }

  void testSessionCapShorterThanTheTokenTtl() {
    tokens_ = makeService(600);
    const acc::IssuedToken t = tokens_->issue(userId_, companyId_, true);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{600}, t.expiresIn);
    time_.advanceSeconds(300);
    const auto next = tokens_->refresh(t.token);
    CPPUNIT_ASSERT(next);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{300}, next->expiresIn);
    CPPUNIT_ASSERT(next->remember);
  }

  void testContextSwitchStaysInTheFamily() {
    const auto [ignored, second] =
        rapport::test::tokens::seedOwner(*db_, time_.now(), "second", userId_);
    const acc::IssuedToken t = tokens_->issue(userId_, companyId_, false);
    const std::int64_t started = time_.now();
    time_.advanceSeconds(50);
    const auto switched = tokens_->issueForCompany(*tokens_->authenticate(t.token), second);
    CPPUNIT_ASSERT(switched);
    CPPUNIT_ASSERT_EQUAL(t.familyId, switched->familyId);
    CPPUNIT_ASSERT_EQUAL(started, db_->query("SELECT session_started_at FROM tokens WHERE id = ?",
                                             {switched->tokenId})
                                      .front()
                                      .i64("session_started_at"));
    CPPUNIT_ASSERT_EQUAL(started, *tokens_->sessionStartedAt(switched->tokenId));
    // The current token is left as it is (not refreshed): it refreshes once,
    // and the other company's token lives on beside its successor.
    const auto fresh = tokens_->refresh(t.token);
    CPPUNIT_ASSERT(fresh);
    CPPUNIT_ASSERT(tokens_->authenticate(switched->token));
    CPPUNIT_ASSERT(tokens_->authenticate(t.token));  // in its grace
    // One login: a reuse anywhere ends every company's token of it.
    CPPUNIT_ASSERT(!tokens_->refresh(t.token));
    CPPUNIT_ASSERT(!tokens_->authenticate(switched->token));
    CPPUNIT_ASSERT(!tokens_->authenticate(fresh->token));
    CPPUNIT_ASSERT(!tokens_->refresh(switched->token));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0},
                         countRows(*db_,
                                   "SELECT COUNT(*) AS n FROM tokens WHERE family_id = ? AND "
                                   "revoked_at IS NULL",
                                   {t.familyId}));
  }

  void testContextSwitchToItsOwnCompanyIssuesNothing() {
    // Before issue 21 this minted a sibling for the same company, outside the
    // refresh chain: it outlived the parent's refresh and any reuse of it.
    const acc::IssuedToken t = tokens_->issue(userId_, companyId_, false);
    const rapport::Identity identity = *tokens_->authenticate(t.token);
    bool admitted = false;
    CPPUNIT_ASSERT(!tokens_->issueForCompany(identity, companyId_,
                                             [&](rapport::Queryable&, const std::string& current) {
                                               CPPUNIT_ASSERT_EQUAL(companyId_, current);
                                               admitted = true;
                                             }));
    CPPUNIT_ASSERT(admitted);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, countRows(*db_, "SELECT COUNT(*) AS n FROM tokens"));
    // Nothing happened to the token: it refreshes, and nobody else holds a
    // token of its login.
    const auto fresh = tokens_->refresh(t.token);
    CPPUNIT_ASSERT(fresh);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, countRows(*db_,
                                                    "SELECT COUNT(*) AS n FROM tokens WHERE "
                                                    "family_id = ? AND revoked_at IS NULL",
                                                    {t.familyId}));
  }

  void testContextSwitchWithARefreshedTokenIsReuse() {
    const auto [ignored, second] =
        rapport::test::tokens::seedOwner(*db_, time_.now(), "second", userId_);
    const acc::IssuedToken t = tokens_->issue(userId_, companyId_, false);
    const acc::IssuedToken otherLogin = tokens_->issue(userId_, companyId_, false);
    const rapport::Identity identity = *tokens_->authenticate(t.token);
    const auto sibling = tokens_->issueForCompany(identity, second);
    CPPUNIT_ASSERT(sibling);
    const auto fresh = tokens_->refresh(t.token);
    CPPUNIT_ASSERT(fresh);
    time_.advanceSeconds(10);
    // Within its grace the refreshed token still authenticates, but showing
    // it to switch is reuse: nothing issued, the whole login revoked (the
    // token of the refresh and the earlier switch's sibling included), and
    // the caller's checks never ran.
    CPPUNIT_ASSERT(tokens_->authenticate(t.token));
    bool admitted = false;
    CPPUNIT_ASSERT(!tokens_->issueForCompany(
        identity, second, [&](rapport::Queryable&, const std::string&) { admitted = true; }));
    CPPUNIT_ASSERT(!admitted);
    for (const std::string* token : {&t.token, &fresh->token, &sibling->token}) {
      CPPUNIT_ASSERT(!tokens_->authenticate(*token));
    }
    CPPUNIT_ASSERT(!tokens_->refresh(fresh->token));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3},
                         countRows(*db_,
                                   "SELECT COUNT(*) AS n FROM tokens WHERE family_id = ? AND "
                                   "revoked_at = ?",
                                   {t.familyId, time_.now()}));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3}, countRows(*db_,
                                                    "SELECT COUNT(*) AS n FROM tokens WHERE "
                                                    "family_id = ?",
                                                    {t.familyId}));
    // Another login is another family.
    CPPUNIT_ASSERT(tokens_->authenticate(otherLogin.token));
    // A revoked token cannot switch either (and that is no reuse).
    const acc::IssuedToken revoked = tokens_->issue(userId_, companyId_, false);
    const rapport::Identity revokedIdentity = *tokens_->authenticate(revoked.token);
    tokens_->revoke(revoked.tokenId);
    CPPUNIT_ASSERT(!tokens_->issueForCompany(revokedIdentity, second));
    CPPUNIT_ASSERT(tokens_->authenticate(otherLogin.token));
  }

  void testARefusedSwitchWritesNothing() {
    // The caller's check throws (the route's 404 or 403): nothing issued,
    // and the token is untouched.
    const auto [ignored, second] =
        rapport::test::tokens::seedOwner(*db_, time_.now(), "second", userId_);
    const acc::IssuedToken t = tokens_->issue(userId_, companyId_, false);
    const rapport::Identity identity = *tokens_->authenticate(t.token);
    CPPUNIT_ASSERT_THROW(tokens_->issueForCompany(identity, second,
                                                  [](rapport::Queryable&, const std::string&) {
                                                    throw std::runtime_error("refused");
                                                  }),
                         std::runtime_error);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, countRows(*db_, "SELECT COUNT(*) AS n FROM tokens"));
    CPPUNIT_ASSERT(tokens_->refresh(t.token));
  }

  void testReuseInASwitchedChainEndsTheWholeLogin() {
    // The switched token refreshes in its own chain; a reuse there ends the
    // login in every company, the token it was switched from included.
    const auto [ignored, second] =
        rapport::test::tokens::seedOwner(*db_, time_.now(), "second", userId_);
    const acc::IssuedToken t = tokens_->issue(userId_, companyId_, false);
    const auto switched = tokens_->issueForCompany(*tokens_->authenticate(t.token), second);
    const auto next = tokens_->refresh(switched->token);
    CPPUNIT_ASSERT(next);
    CPPUNIT_ASSERT_EQUAL(t.familyId, next->familyId);
    CPPUNIT_ASSERT(!tokens_->refresh(switched->token));
    for (const std::string* token : {&t.token, &switched->token, &next->token}) {
      CPPUNIT_ASSERT(!tokens_->authenticate(*token));
    }
  }

  void testContextSwitchRespectsTheCap() {
    tokens_ = makeService(3600);
    const auto [ignored, second] =
        rapport::test::tokens::seedOwner(*db_, time_.now(), "second", userId_);
    const acc::IssuedToken t = tokens_->issue(userId_, companyId_, false);
    time_.advanceSeconds(3000);
    const auto identity = *tokens_->authenticate(t.token);
    const auto switched = tokens_->issueForCompany(identity, second);
    CPPUNIT_ASSERT(switched);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{600}, switched->expiresIn);
    time_.advanceMicros(599 * acc::kMicrosPerSecond + 1);
    CPPUNIT_ASSERT(!tokens_->issueForCompany(identity, second));
  }

  void testMigrationGivesExistingTokensAFamily() {
    // A database at 0003 with a token in it, then migrated on.
    auto all = rapport::test::tokens::hostMigrations();
    std::vector<rapport::Migration> before;
    for (const auto& m : all) {
      if (m.id < "0004") before.push_back(m);
    }
    rapport::host::StorageOptions options;
    options.url = rapport::test::freshDatabaseUrl("tokens_mig");
    auto db = rapport::host::SqlDatabase::open(options);
    rapport::host::Migrator(*db).apply({{"host", before}});
    const auto [user, company] = rapport::test::tokens::seedOwner(*db, time_.now(), "old");
    db->exec(
        "INSERT INTO tokens (id, token_hash, user_id, company_id, remember, created_at, "
        "expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        {"tok_old", rapport::sha256Hex("x"), user, company, false, std::int64_t{1234567},
         time_.now() + 3600 * acc::kMicrosPerSecond});
    rapport::host::Migrator(*db).apply({{"host", all}});
    const rapport::Row row = db->query("SELECT * FROM tokens WHERE id = ?", {"tok_old"}).front();
    CPPUNIT_ASSERT_EQUAL(std::string("tok_old"), row.str("family_id"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1234567}, row.i64("session_started_at"));
    CPPUNIT_ASSERT(row.isNull("refreshed_at"));
    CPPUNIT_ASSERT(row.isNull("replaced_by"));
  }

 private:
  std::unique_ptr<acc::TokenService> makeService(std::int64_t maxSessionAge = 7776000) {
    acc::TokenOptions options;
    options.maxSessionAge = maxSessionAge;
    return std::make_unique<acc::TokenService>(*db_, options, time_.clock());
  }

  ManualClock time_;
  std::unique_ptr<rapport::host::SqlDatabase> db_;
  std::unique_ptr<acc::TokenService> tokens_;
  std::string userId_;
  std::string companyId_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(TokenFamilyTest);
