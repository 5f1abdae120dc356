// TokenCache as revocation notices use it (no database): eraseToken by id,
// clear, and the epoch guard for both (a lookup that read the database
// before the notice must not store what it read).
#include <cppunit/extensions/HelperMacros.h>

#include "accounts/TokenCache.h"

namespace acc = rapport::host::accounts;

class TokenCacheNoticeTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(TokenCacheNoticeTest);
  CPPUNIT_TEST(testEraseTokenById);
  CPPUNIT_TEST(testEraseTokenGuardsConcurrentLoads);
  CPPUNIT_TEST(testClear);
  CPPUNIT_TEST(testEvictionKeepsTheIdIndexRight);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testEraseTokenById() {
    acc::TokenCache cache(1000);
    for (int i = 0; i < 50; ++i) put(cache, i, i % 2 == 0 ? "user_a" : "user_b");
    cache.eraseToken("tok_7");
    CPPUNIT_ASSERT(!cache.find("hash_7").entry);
    CPPUNIT_ASSERT(cache.find("hash_8").entry);
    CPPUNIT_ASSERT_EQUAL(std::size_t{49}, cache.size());
    cache.eraseToken("tok_unknown");  // harmless
    cache.eraseToken("tok_7");
    CPPUNIT_ASSERT_EQUAL(std::size_t{49}, cache.size());
    cache.eraseUser("user_a");
    CPPUNIT_ASSERT_EQUAL(std::size_t{24}, cache.size());
    cache.eraseToken("tok_9");
    CPPUNIT_ASSERT_EQUAL(std::size_t{23}, cache.size());
    // Erased by hash, then re-stored: the id finds the new entry.
    cache.erase("hash_11");
    put(cache, 11, "user_b");
    cache.eraseToken("tok_11");
    CPPUNIT_ASSERT(!cache.find("hash_11").entry);
  }

  void testEraseTokenGuardsConcurrentLoads() {
    acc::TokenCache cache(1000);
    const auto before = cache.find("hash_1");  // a miss: the database is read now
    cache.eraseToken("tok_1");                 // the notice arrives meanwhile
    cache.storeIfUnchanged("hash_1", entry(1, "user_a"), before.epoch);
    CPPUNIT_ASSERT(!cache.find("hash_1").entry);
    const auto later = cache.find("hash_1");
    cache.storeIfUnchanged("hash_1", entry(1, "user_a"), later.epoch);
    CPPUNIT_ASSERT(cache.find("hash_1").entry);
  }

  void testClear() {
    acc::TokenCache cache(1000);
    for (int i = 0; i < 20; ++i) put(cache, i, "user_a");
    const auto before = cache.find("hash_99");
    cache.clear();
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, cache.size());
    cache.storeIfUnchanged("hash_99", entry(99, "user_a"), before.epoch);
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, cache.size());
    cache.eraseToken("tok_3");  // the index was cleared with the entries
    put(cache, 3, "user_a");
    cache.eraseToken("tok_3");
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, cache.size());
  }

  void testEvictionKeepsTheIdIndexRight() {
    acc::TokenCache cache(16);  // one entry per shard: stores evict
    for (int i = 0; i < 200; ++i) put(cache, i, "user_a");
    CPPUNIT_ASSERT(cache.size() <= 16);
    for (int i = 0; i < 200; ++i) cache.eraseToken("tok_" + std::to_string(i));
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, cache.size());
  }

 private:
  static acc::CachedToken entry(int i, const std::string& userId) {
    acc::CachedToken e;
    e.identity.authenticated = true;
    e.identity.userId = userId;
    e.identity.tokenId = "tok_" + std::to_string(i);
    e.expiresAt = 1'000'000'000'000;
    return e;
  }

  static void put(acc::TokenCache& cache, int i, const std::string& userId) {
    const std::string hash = "hash_" + std::to_string(i);
    cache.storeIfUnchanged(hash, entry(i, userId), cache.find(hash).epoch);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TokenCacheNoticeTest);
