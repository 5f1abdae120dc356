// rapport::Config::getList, written once over getString for every Config.
#include <cppunit/extensions/HelperMacros.h>

#include <map>
#include <string>
#include <vector>

#include "rapport/config.h"

namespace {

class OneKey : public rapport::Config {
 public:
  explicit OneKey(std::string value) : value_(std::move(value)) {}
  bool has(const std::string& key) const override { return key == "k"; }
  std::string getString(const std::string& key, const std::string& fallback) const override {
    return has(key) ? value_ : fallback;
  }
  std::int64_t getInt(const std::string&, std::int64_t fallback) const override { return fallback; }
  bool getBool(const std::string&, bool fallback) const override { return fallback; }

 private:
  std::string value_;
};

using List = std::vector<std::string>;

}  // namespace

class ConfigTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ConfigTest);
  CPPUNIT_TEST(testGetList);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testGetList() {
    CPPUNIT_ASSERT(OneKey("0,60,300").getList("k", {}) == List({"0", "60", "300"}));
    CPPUNIT_ASSERT(OneKey(" a ,\tb, ,,c ").getList("k", {}) == List({"a", "b", "c"}));
    CPPUNIT_ASSERT(OneKey("").getList("k", {"x"}).empty());  // set but empty: no items
    CPPUNIT_ASSERT(OneKey("one").getList("k", {}) == List({"one"}));
    CPPUNIT_ASSERT(OneKey("a").getList("other", {"x", "y"}) == List({"x", "y"}));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ConfigTest);
