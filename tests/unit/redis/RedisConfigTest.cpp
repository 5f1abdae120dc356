// redis.url parsing (passwords never echoed) and the choice of store by
// ratelimit.store: memory by default, redis when reachable, and start-up
// refusals for an unknown store, a malformed URL and an unreachable redis
// (naming the URL without its password).
#include <cppunit/extensions/HelperMacros.h>

#include <map>
#include <stdexcept>
#include <string>

#include "ratelimit/MemoryAttemptLog.h"
#include "ratelimit/MemoryRateLimitStore.h"
#include "ratelimit/RateLimitStores.h"
#include "ratelimit/RedisAttemptLog.h"
#include "ratelimit/RedisRateLimitStore.h"
#include "ratelimit/RedisUrl.h"
#include "unit/redis/TestRedis.h"

using rapport::host::openRateLimitStores;
using rapport::host::parseRedisUrl;
using rapport::host::RedisUrl;

namespace {

using Values = std::map<std::string, std::string>;

struct MapConfig : rapport::Config {
  Values values;
  explicit MapConfig(Values v) : values(std::move(v)) {}
  bool has(const std::string& key) const override { return values.count(key) > 0; }
  std::string getString(const std::string& key, const std::string& fallback) const override {
    const auto it = values.find(key);
    return it == values.end() ? fallback : it->second;
  }
  std::int64_t getInt(const std::string&, std::int64_t fallback) const override { return fallback; }
  bool getBool(const std::string&, bool fallback) const override { return fallback; }
};

// The message of the std::exception `f` throws ("" when none).
template <typename F>
std::string messageOf(F f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

class RedisConfigTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(RedisConfigTest);
  CPPUNIT_TEST(testParsesUrls);
  CPPUNIT_TEST(testRefusesMalformedUrls);
  CPPUNIT_TEST(testMemoryByDefault);
  CPPUNIT_TEST(testRedisWhenConfigured);
  CPPUNIT_TEST(testRefusesUnknownStore);
  CPPUNIT_TEST(testRefusesUnreachableRedisWithoutThePassword);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testParsesUrls() {
    RedisUrl plain = parseRedisUrl("redis://10.0.0.5:6380");
    CPPUNIT_ASSERT_EQUAL(std::string("10.0.0.5"), plain.host);
    CPPUNIT_ASSERT_EQUAL(6380, plain.port);
    CPPUNIT_ASSERT_EQUAL(0, plain.database);
    CPPUNIT_ASSERT(plain.password.empty());
    CPPUNIT_ASSERT_EQUAL(std::string("redis://10.0.0.5:6380/0"), plain.description);

    RedisUrl full = parseRedisUrl("redis://:s3cr@t@cache.internal:7000/3");
    CPPUNIT_ASSERT_EQUAL(std::string("cache.internal"), full.host);
    CPPUNIT_ASSERT_EQUAL(std::string("s3cr@t"), full.password);
    CPPUNIT_ASSERT(full.username.empty());
    CPPUNIT_ASSERT_EQUAL(3, full.database);
    CPPUNIT_ASSERT_EQUAL(std::string("redis://:***@cache.internal:7000/3"), full.description);

    RedisUrl user = parseRedisUrl("redis://rapport:pw@[::1]/");
    CPPUNIT_ASSERT_EQUAL(std::string("::1"), user.host);
    CPPUNIT_ASSERT_EQUAL(6379, user.port);
    CPPUNIT_ASSERT_EQUAL(std::string("rapport"), user.username);
    CPPUNIT_ASSERT_EQUAL(std::string("redis://rapport:***@[::1]:6379/0"), user.description);
  }

  void testRefusesMalformedUrls() {
    for (const std::string url :
         {"http://localhost:6379", "redis://", "redis://:pw@", "redis://host:", "redis://host:0",
          "redis://host:70000", "redis://host:63x9", "redis://host/db", "redis://[::1",
          "redis://pw@host"}) {
      const std::string message = messageOf([&] { parseRedisUrl(url); });
      CPPUNIT_ASSERT_MESSAGE(url + ": " + message, contains(message, "redis.url must be"));
    }
    CPPUNIT_ASSERT(
        !contains(messageOf([] { parseRedisUrl("redis://:hunter2@host:x"); }), "hunter2"));
  }

  void testMemoryByDefault() {
    const auto stores = openRateLimitStores(MapConfig(Values{}));
    CPPUNIT_ASSERT(!stores.redis);
    CPPUNIT_ASSERT(dynamic_cast<rapport::host::MemoryRateLimitStore*>(stores.requests.get()));
    CPPUNIT_ASSERT(dynamic_cast<rapport::host::MemoryAttemptLog*>(stores.attempts.get()));
    CPPUNIT_ASSERT_EQUAL(std::string("memory"), stores.description);
  }

  void testRedisWhenConfigured() {
    const auto stores = openRateLimitStores(
        MapConfig(Values{{"ratelimit.store", "redis"}, {"redis.url", rapport::test::redisUrl()}}));
    CPPUNIT_ASSERT(stores.redis);
    CPPUNIT_ASSERT(dynamic_cast<rapport::host::RedisRateLimitStore*>(stores.requests.get()));
    CPPUNIT_ASSERT(dynamic_cast<rapport::host::RedisAttemptLog*>(stores.attempts.get()));
  }

  void testRefusesUnknownStore() {
    CPPUNIT_ASSERT_EQUAL(std::string("ratelimit.store must be memory or redis (got 'memcached')"),
                         messageOf([] {
                           openRateLimitStores(MapConfig(Values{{"ratelimit.store", "memcached"}}));
                         }));
    CPPUNIT_ASSERT(contains(messageOf([] {
                              openRateLimitStores(MapConfig(
                                  Values{{"ratelimit.store", "redis"}, {"redis.url", "redis:/x"}}));
                            }),
                            "redis.url must be"));
  }

  void testRefusesUnreachableRedisWithoutThePassword() {
    const std::string port = std::to_string(rapport::test::closedPort());
    const std::string message = messageOf([&] {
      openRateLimitStores(MapConfig(Values{{"ratelimit.store", "redis"},
                                           {"redis.url", "redis://:hunter2@127.0.0.1:" + port}}));
    });
    CPPUNIT_ASSERT_MESSAGE(message, contains(message,
                                             "ratelimit.store is redis but redis at "
                                             "redis://:***@127.0.0.1:" +
                                                 port + "/0: cannot connect"));
    CPPUNIT_ASSERT_MESSAGE(message, !contains(message, "hunter2"));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(RedisConfigTest);
