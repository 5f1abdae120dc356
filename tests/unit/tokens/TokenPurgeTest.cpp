// TokenService::purge on a real database (both engines): what the hourly
// job deletes (expired or revoked for longer than the cutoff) and what it
// keeps (recent ones, and a refreshed token while its family lives, which
// reuse detection needs), in batches.
#include <cppunit/extensions/HelperMacros.h>

#include <memory>
#include <set>

#include "TokensSupport.h"
#include "accounts/TokenService.h"

namespace acc = rapport::host::accounts;
using rapport::test::tokens::countRows;
using rapport::test::tokens::ManualClock;

class TokenPurgeTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(TokenPurgeTest);
  CPPUNIT_TEST(testDeletesExpiredAndRevokedPastTheCutoff);
  CPPUNIT_TEST(testKeepsARefreshedTokenWhileItsFamilyLives);
  CPPUNIT_TEST(testRunsInBatches);
  CPPUNIT_TEST(testStopsWhenAsked);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override {
    db_ = rapport::test::tokens::openMigratedDatabase();
    tokens_ = std::make_unique<acc::TokenService>(*db_, acc::TokenOptions{}, time_.clock());
    std::tie(userId_, companyId_) = rapport::test::tokens::seedOwner(*db_, time_.now(), "ann");
  }

  void tearDown() override {
    tokens_.reset();
    db_.reset();
  }

  void testDeletesExpiredAndRevokedPastTheCutoff() {
    const acc::IssuedToken expiredLongAgo = tokens_->issue(userId_, companyId_, false);
    const acc::IssuedToken revokedLongAgo = tokens_->issue(userId_, companyId_, true);
    tokens_->revoke(revokedLongAgo.tokenId);
    time_.advanceSeconds(2 * 3600);  // the first expired an hour ago
    const acc::IssuedToken expiredRecently = tokens_->issue(userId_, companyId_, false);
    const acc::IssuedToken revokedRecently = tokens_->issue(userId_, companyId_, true);
    const acc::IssuedToken live = tokens_->issue(userId_, companyId_, true);
    time_.advanceSeconds(3600 + 30);  // expiredRecently: expired 30 s ago
    tokens_->revoke(revokedRecently.tokenId);
    // Cutoff one hour: only what died more than an hour ago goes.
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, tokens_->purge(3600));
    CPPUNIT_ASSERT(ids() == std::set<std::string>(
                                {expiredRecently.tokenId, revokedRecently.tokenId, live.tokenId}));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, tokens_->purge(3600));
    // Cutoff 10 s: the recently expired one goes, the just-revoked one stays.
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, tokens_->purge(10));
    CPPUNIT_ASSERT(ids() == std::set<std::string>({revokedRecently.tokenId, live.tokenId}));
    time_.advanceSeconds(11);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, tokens_->purge(10));
    CPPUNIT_ASSERT(ids() == std::set<std::string>({live.tokenId}));
    CPPUNIT_ASSERT(tokens_->authenticate(live.token));
  }

  void testKeepsARefreshedTokenWhileItsFamilyLives() {
    const acc::IssuedToken t0 = tokens_->issue(userId_, companyId_, false);
    const auto t1 = tokens_->refresh(t0.token);
    time_.advanceSeconds(3000);
    const auto t2 = tokens_->refresh(t1->token);
    time_.advanceSeconds(3000);  // t0 and t1 expired (their grace) long ago; t2 lives
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, tokens_->purge(60));
    CPPUNIT_ASSERT_EQUAL(std::size_t{3}, ids().size());
    // Which is what lets a late reuse of t0 still end the login.
    CPPUNIT_ASSERT(!tokens_->refresh(t0.token));
    CPPUNIT_ASSERT(!tokens_->authenticate(t2->token));
    // The family is dead now (revoked): t0 and t1, expired long ago, go at
    // once; t2, revoked just now, after the cutoff.
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, tokens_->purge(60));
    CPPUNIT_ASSERT(ids() == std::set<std::string>({t2->tokenId}));
    time_.advanceSeconds(61);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, tokens_->purge(60));
    CPPUNIT_ASSERT(ids().empty());

    // A family that simply expired goes too, refreshed members included.
    const acc::IssuedToken u0 = tokens_->issue(userId_, companyId_, false);
    const auto u1 = tokens_->refresh(u0.token);
    time_.advanceSeconds(3000);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, tokens_->purge(60));  // u1 lives: u0 kept
    time_.advanceSeconds(3600);                                 // u1 expired 3000 s ago
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, tokens_->purge(60));
    CPPUNIT_ASSERT(ids().empty());
  }

  void testRunsInBatches() {
    for (int i = 0; i < 7; ++i) tokens_->issue(userId_, companyId_, false);
    const acc::IssuedToken keep = tokens_->issue(userId_, companyId_, true);
    time_.advanceSeconds(3600 + 120);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{7}, tokens_->purge(60, 3));
    CPPUNIT_ASSERT(ids() == std::set<std::string>({keep.tokenId}));
  }

  void testStopsWhenAsked() {
    for (int i = 0; i < 7; ++i) tokens_->issue(userId_, companyId_, false);
    time_.advanceSeconds(3600 + 120);
    int asked = 0;
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3}, tokens_->purge(60, 3, [&] { return ++asked >= 1; }));
    CPPUNIT_ASSERT_EQUAL(1, asked);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{4}, countRows(*db_, "SELECT COUNT(*) AS n FROM tokens"));
  }

 private:
  std::set<std::string> ids() {
    std::set<std::string> out;
    for (const rapport::Row& row : db_->query("SELECT id FROM tokens")) out.insert(row.str("id"));
    return out;
  }

  ManualClock time_;
  std::unique_ptr<rapport::host::SqlDatabase> db_;
  std::unique_ptr<acc::TokenService> tokens_;
  std::string userId_;
  std::string companyId_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(TokenPurgeTest);
