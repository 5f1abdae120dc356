// auth.max_session_age: read by AccountsOptions (default 90 days, at least
// 1 second, at most ten years) and handed to TokenService.
#include <cppunit/extensions/HelperMacros.h>

#include <map>
#include <stdexcept>

#include "accounts/AccountsOptions.h"
#include "rapport/config.h"

namespace acc = rapport::host::accounts;

namespace {

class Values : public rapport::Config {
 public:
  std::map<std::string, std::string> values;
  bool has(const std::string& key) const override { return values.count(key) > 0; }
  std::string getString(const std::string& key, const std::string& fallback) const override {
    auto it = values.find(key);
    return it == values.end() ? fallback : it->second;
  }
  std::int64_t getInt(const std::string& key, std::int64_t fallback) const override {
    auto it = values.find(key);
    return it == values.end() ? fallback : std::stoll(it->second);
  }
  bool getBool(const std::string& key, bool fallback) const override {
    auto it = values.find(key);
    return it == values.end() ? fallback : it->second == "true";
  }
};

}  // namespace

class SessionAgeOptionTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(SessionAgeOptionTest);
  CPPUNIT_TEST(testDefaultIsNinetyDays);
  CPPUNIT_TEST(testConfigured);
  CPPUNIT_TEST(testOutOfRangeIsRefusedByName);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testDefaultIsNinetyDays() {
    const Values none;
    const acc::AccountsOptions o = acc::AccountsOptions::fromConfig(none);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{7776000}, o.maxSessionAge);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{7776000}, o.tokenOptions().maxSessionAge);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{7776000}, acc::TokenOptions{}.maxSessionAge);
  }

  void testConfigured() {
    Values config;
    config.values["auth.max_session_age"] = "3";
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3},
                         acc::AccountsOptions::fromConfig(config).tokenOptions().maxSessionAge);
  }

  void testOutOfRangeIsRefusedByName() {
    for (const char* value : {"0", "-5", "315360001"}) {
      Values config;
      config.values["auth.max_session_age"] = value;
      try {
        acc::AccountsOptions::fromConfig(config);
        CPPUNIT_FAIL(std::string("accepted auth.max_session_age=") + value);
      } catch (const std::invalid_argument& e) {
        CPPUNIT_ASSERT(std::string(e.what()).find("auth.max_session_age") != std::string::npos);
      }
    }
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(SessionAgeOptionTest);
