// API keys through TokenService (decisions §15), on a real database of each
// engine: a key's hash resolves an ApiKey identity (admin, its scopes, its
// company) through the token cache; an expired key is refused from the
// cached expiry; forgetKey drops the entry with the commit, so a changed
// scope shows on the next request; a deleted key confirmed in the database
// (PostgreSQL without live notices) is refused; a use is noted for the
// last_used_at job at most once a minute, and markUsed writes it.
#include <cppunit/extensions/HelperMacros.h>

#include "TokensSupport.h"
#include "accounts/TokenService.h"
#include "accounts/apikeys/ApiKeyStore.h"
#include "rapport/ids.h"

namespace acc = rapport::host::accounts;
namespace keys = rapport::host::accounts::apikeys;
using rapport::test::tokens::ManualClock;

namespace {

class ApiKeyAuthTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ApiKeyAuthTest);
  CPPUNIT_TEST(testKeyResolvesAnIntegration);
  CPPUNIT_TEST(testMalformedAndUnknownKeysCostNothing);
  CPPUNIT_TEST(testExpiredKeyRefused);
  CPPUNIT_TEST(testForgetKeyAppliesTheNewScopes);
  CPPUNIT_TEST(testDeletedKeyRefusedWhereHitsAreConfirmed);
  CPPUNIT_TEST(testUsesNotedOnceAMinute);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override {
    db_ = rapport::test::tokens::openMigratedDatabase();
    acc::TokenOptions options;
    tokens_ = std::make_unique<acc::TokenService>(*db_, options, time_.clock());
    std::tie(userId_, companyId_) = rapport::test::tokens::seedOwner(*db_, time_.now(), "kim");
  }

  void tearDown() override {
    tokens_.reset();
    db_.reset();
  }

  void testKeyResolvesAnIntegration() {
    const std::string key = makeKey({"contacts:read", "deals:write"});
    const auto identity = tokens_->authenticate(key);
    CPPUNIT_ASSERT(identity);
    CPPUNIT_ASSERT(identity->isApiKey());
    CPPUNIT_ASSERT_EQUAL(keyId_, identity->tokenId);
    CPPUNIT_ASSERT_EQUAL(keyId_, identity->principalId());
    CPPUNIT_ASSERT(identity->userId.empty());
    CPPUNIT_ASSERT_EQUAL(companyId_, identity->companyId);
    CPPUNIT_ASSERT(identity->role == rapport::Role::Admin);
    CPPUNIT_ASSERT(identity->scopes == (std::vector<std::string>{"contacts:read", "deals:write"}));
    // Cached: a second call answers the same without the table.
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, tokens_->cachedCount());
    CPPUNIT_ASSERT(tokens_->authenticate(key));
  }

  void testMalformedAndUnknownKeysCostNothing() {
    makeKey({"contacts:read"});
    CPPUNIT_ASSERT(!tokens_->authenticate("rk_short"));
    CPPUNIT_ASSERT(!tokens_->authenticate("rk_" + rapport::randomToken(32)));
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, tokens_->cachedCount());
  }

  void testExpiredKeyRefused() {
    const std::string key = makeKey({"contacts:read"}, time_.now() + 5'000'000);
    CPPUNIT_ASSERT(tokens_->authenticate(key));
    time_.advanceSeconds(6);
    CPPUNIT_ASSERT(!tokens_->authenticate(key));
    CPPUNIT_ASSERT(!tokens_->authenticate(key));  // and from the table
  }

  void testForgetKeyAppliesTheNewScopes() {
    const std::string key = makeKey({"contacts:read"});
    CPPUNIT_ASSERT(tokens_->authenticate(key));
    db_->transaction(companyId_, [&](rapport::Tx& tx) {
      auto record = keys::find(tx, companyId_, keyId_, true);
      record->scopes = {"companies:read"};
      keys::update(tx, *record);
      tokens_->forgetKey(tx, keyId_);
    });
    const auto identity = tokens_->authenticate(key);
    CPPUNIT_ASSERT(identity);
    CPPUNIT_ASSERT(identity->scopes == (std::vector<std::string>{"companies:read"}));
    db_->transaction(companyId_, [&](rapport::Tx& tx) {
      keys::remove(tx, companyId_, keyId_);
      tokens_->forgetKey(tx, keyId_);
    });
    CPPUNIT_ASSERT(!tokens_->authenticate(key));
  }

  void testDeletedKeyRefusedWhereHitsAreConfirmed() {
    const std::string key = makeKey({"contacts:read"});
    CPPUNIT_ASSERT(tokens_->authenticate(key));
    // Deleted behind this service's back (another instance, no notice seen).
    db_->exec("DELETE FROM api_keys WHERE id = ?", {keyId_});
    if (tokens_->confirmsCacheHits()) {
      CPPUNIT_ASSERT(!tokens_->authenticate(key));  // PostgreSQL: one lookup says so
    } else {
      // SQLite: one process per file; the entry lives out its cache age.
      time_.advanceSeconds(tokens_->options().cacheTtlSeconds + 1);
      CPPUNIT_ASSERT(!tokens_->authenticate(key));
    }
  }

  void testUsesNotedOnceAMinute() {
    const std::string key = makeKey({"contacts:read"});
    int wakes = 0;
    tokens_->onKeyUse([&wakes] { ++wakes; });
    for (int i = 0; i < 5; ++i) CPPUNIT_ASSERT(tokens_->authenticate(key));
    CPPUNIT_ASSERT_EQUAL(1, wakes);
    auto pending = tokens_->keyUsage().take();
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, pending.size());
    CPPUNIT_ASSERT_EQUAL(keyId_, pending[0].first);
    keys::markUsed(*db_, pending[0].first, pending[0].second, tokens_->keyUsage().every());
    CPPUNIT_ASSERT_EQUAL(time_.now(), keys::find(*db_, companyId_, keyId_)->lastUsedAt.value());
    time_.advanceSeconds(30);
    CPPUNIT_ASSERT(tokens_->authenticate(key));
    CPPUNIT_ASSERT(tokens_->keyUsage().take().empty());
    time_.advanceSeconds(31);
    CPPUNIT_ASSERT(tokens_->authenticate(key));
    CPPUNIT_ASSERT_EQUAL(2, wakes);
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, tokens_->keyUsage().take().size());
  }

 private:
  // A key of the seeded company with `scopes`; returns the key, keeps its id.
  std::string makeKey(std::vector<std::string> scopes,
                      std::optional<std::int64_t> expiresAt = std::nullopt) {
    const std::string key = "rk_" + rapport::randomToken(32);
    keyId_ = rapport::newId("key_");
    keys::insert(*db_,
                 {.id = keyId_,
                  .companyId = companyId_,
                  .name = "sync",
                  .keyPrefix = key.substr(0, keys::kShownLength),
                  .scopes = std::move(scopes),
                  .createdBy = userId_,
                  .createdAt = time_.now(),
                  .expiresAt = expiresAt,
                  .lastUsedAt = std::nullopt},
                 rapport::sha256Hex(key));
    return key;
  }

  ManualClock time_;
  std::unique_ptr<rapport::host::SqlDatabase> db_;
  std::unique_ptr<acc::TokenService> tokens_;
  std::string userId_;
  std::string companyId_;
  std::string keyId_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(ApiKeyAuthTest);

}  // namespace
