// AccountsOptions::fromConfig: defaults, overrides, refusals.
#include <cppunit/extensions/HelperMacros.h>

#include <stdexcept>
#include <utility>
#include <vector>

#include "AccountsTestSupport.h"
#include "accounts/AccountsOptions.h"

using rapport::host::accounts::AccountsOptions;
using rapport::test::accounts::MapConfig;

class AccountsOptionsTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(AccountsOptionsTest);
  CPPUNIT_TEST(testDefaults);
  CPPUNIT_TEST(testOverrides);
  CPPUNIT_TEST(testRefusals);
  CPPUNIT_TEST(testLoginLimits);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testDefaults() {
    const AccountsOptions o = AccountsOptions::fromConfig(MapConfig{});
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3600}, o.tokenTtl);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2592000}, o.rememberTtl);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{10}, o.cacheTtlSeconds);
    CPPUNIT_ASSERT_EQUAL(std::uint32_t{19456}, o.argon2.memoryKib);
    CPPUNIT_ASSERT_EQUAL(std::uint32_t{2}, o.argon2.iterations);
    CPPUNIT_ASSERT_EQUAL(std::uint32_t{1}, o.argon2.parallelism);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{5}, o.loginMaxAttempts);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{60}, o.loginWindow);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{60}, o.tokenOptions().refreshGrace);
  }

  void testOverrides() {
    MapConfig config;
    config.values = {{"auth.token_ttl", "600"},         {"auth.remember_ttl", "86400"},
                     {"auth.token_cache_ttl", "0"},     {"auth.argon2.memory_kib", "65536"},
                     {"auth.argon2.iterations", "3"},   {"auth.argon2.parallelism", "4"},
                     {"auth.login.max_attempts", "10"}, {"auth.login.window", "300"},
                     {"auth.token_cache_size", "1000"}, {"auth.refresh_grace", "1"}};
    const AccountsOptions o = AccountsOptions::fromConfig(config);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{600}, o.tokenOptions().tokenTtl);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{86400}, o.tokenOptions().rememberTtl);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, o.tokenOptions().cacheTtlSeconds);
    CPPUNIT_ASSERT_EQUAL(std::size_t{1000}, o.tokenOptions().cacheCapacity);
    CPPUNIT_ASSERT_EQUAL(std::uint32_t{65536}, o.argon2.memoryKib);
    CPPUNIT_ASSERT_EQUAL(std::uint32_t{3}, o.argon2.iterations);
    CPPUNIT_ASSERT_EQUAL(std::uint32_t{4}, o.argon2.parallelism);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{10}, o.loginMaxAttempts);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{300}, o.loginWindow);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, o.tokenOptions().refreshGrace);
    config.values["auth.refresh_grace"] = "0";  // the old token stops with the refresh
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0},
                         AccountsOptions::fromConfig(config).tokenOptions().refreshGrace);
  }

  void testRefusals() {
    for (const auto& [key, value] :
         std::map<std::string, std::string>{{"auth.token_ttl", "0"},
                                            {"auth.remember_ttl", "-5"},
                                            {"auth.token_cache_ttl", "-1"},
                                            {"auth.argon2.memory_kib", "8192"},
                                            {"auth.argon2.iterations", "1"},
                                            {"auth.argon2.parallelism", "0"},
                                            {"auth.login.max_attempts", "0"},
                                            {"auth.refresh_grace", "-1"},
                                            {"auth.token_ttl", "soon"}}) {
      MapConfig config;
      config.values[key] = value;
      try {
        AccountsOptions::fromConfig(config);
        CPPUNIT_FAIL(key + "=" + value + " was accepted");
      } catch (const std::invalid_argument& e) {
        CPPUNIT_ASSERT_MESSAGE(e.what(), std::string(e.what()).find(key) != std::string::npos);
      }
    }
  }

  // auth.login.*: the three throttle rules (LoginThrottle.h).
  void testLoginLimits() {
    const auto defaults = AccountsOptions::fromConfig(MapConfig{}).loginLimits();
    CPPUNIT_ASSERT_EQUAL(std::int64_t{5}, defaults.maxAttempts);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{60}, defaults.window);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{20}, defaults.accountMaxAttempts);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{600}, defaults.accountWindow);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{30}, defaults.accountInterval);
    MapConfig config;
    config.values = {{"auth.login.max_attempts", "7"},
                     {"auth.login.window", "120"},
                     {"auth.login.account_max_attempts", "50"},
                     {"auth.login.account_window", "3600"},
                     {"auth.login.account_interval", "10"}};
    const auto set = AccountsOptions::fromConfig(config).loginLimits();
    CPPUNIT_ASSERT_EQUAL(std::int64_t{7}, set.maxAttempts);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{120}, set.window);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{50}, set.accountMaxAttempts);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3600}, set.accountWindow);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{10}, set.accountInterval);
    for (const auto& [key, value] :
         std::vector<std::pair<std::string, std::string>>{{"auth.login.account_max_attempts", "0"},
                                                          {"auth.login.account_window", "0"},
                                                          {"auth.login.account_interval", "0"},
                                                          {"auth.login.account_interval", "3601"},
                                                          {"auth.login.account_window", "often"}}) {
      MapConfig bad;
      bad.values[key] = value;
      try {
        AccountsOptions::fromConfig(bad);
        CPPUNIT_FAIL(key + "=" + value + " was accepted");
      } catch (const std::invalid_argument& e) {
        CPPUNIT_ASSERT_MESSAGE(e.what(), std::string(e.what()).find(key) != std::string::npos);
      }
    }
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(AccountsOptionsTest);
