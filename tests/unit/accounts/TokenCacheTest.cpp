// TokenCache: bounded size, per-user erase, and the epoch guard that keeps a
// revoked token from being re-cached by a request that read the database first.
#include <cppunit/extensions/HelperMacros.h>

#include "accounts/TokenCache.h"

using rapport::host::accounts::CachedToken;
using rapport::host::accounts::TokenCache;

namespace {

CachedToken entryFor(const std::string& userId, std::int64_t expiresAt = 1000) {
  CachedToken entry;
  entry.identity.authenticated = true;
  entry.identity.userId = userId;
  entry.identity.companyId = "comp_a";
  entry.expiresAt = expiresAt;
  entry.cachedAt = 1;
  return entry;
}

}  // namespace

class TokenCacheTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(TokenCacheTest);
  CPPUNIT_TEST(testStoreAndFind);
  CPPUNIT_TEST(testEraseBeatsLateStore);
  CPPUNIT_TEST(testShortenKeepsEarlierExpiry);
  CPPUNIT_TEST(testEraseUser);
  CPPUNIT_TEST(testCapacityIsBounded);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testStoreAndFind() {
    TokenCache cache(100);
    auto miss = cache.find("h1");
    CPPUNIT_ASSERT(!miss.entry);
    cache.storeIfUnchanged("h1", entryFor("user_a"), miss.epoch);
    auto hit = cache.find("h1");
    CPPUNIT_ASSERT(hit.entry);
    CPPUNIT_ASSERT_EQUAL(std::string("user_a"), hit.entry->identity.userId);
  }

  void testEraseBeatsLateStore() {
    TokenCache cache(100);
    const auto before = cache.find("h1");  // a request misses, goes to the database...
    cache.erase("h1");                     // ...meanwhile the token is revoked here
    cache.storeIfUnchanged("h1", entryFor("user_a"), before.epoch);
    CPPUNIT_ASSERT(!cache.find("h1").entry);
  }

  void testShortenKeepsEarlierExpiry() {
    TokenCache cache(100);
    cache.storeIfUnchanged("h1", entryFor("user_a", 1000), cache.find("h1").epoch);
    cache.shorten("h1", 500);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{500}, cache.find("h1").entry->expiresAt);
    cache.shorten("h1", 800);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{500}, cache.find("h1").entry->expiresAt);
  }

  void testEraseUser() {
    TokenCache cache(1000);
    for (int i = 0; i < 50; ++i) {
      const std::string key = "a" + std::to_string(i);
      cache.storeIfUnchanged(key, entryFor("user_a"), cache.find(key).epoch);
      const std::string other = "b" + std::to_string(i);
      cache.storeIfUnchanged(other, entryFor("user_b"), cache.find(other).epoch);
    }
    CPPUNIT_ASSERT_EQUAL(std::size_t{100}, cache.size());
    cache.eraseUser("user_a");
    CPPUNIT_ASSERT_EQUAL(std::size_t{50}, cache.size());
    CPPUNIT_ASSERT(!cache.find("a7").entry);
    CPPUNIT_ASSERT(cache.find("b7").entry);
  }

  void testCapacityIsBounded() {
    TokenCache cache(160);
    for (int i = 0; i < 5000; ++i) {
      const std::string key = "k" + std::to_string(i);
      cache.storeIfUnchanged(key, entryFor("user_a"), cache.find(key).epoch);
    }
    CPPUNIT_ASSERT(cache.size() <= 160);
    CPPUNIT_ASSERT(cache.size() > 0);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TokenCacheTest);
