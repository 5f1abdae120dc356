// The Config a module receives answers the keys it declared: the operator's
// value (file, then RAPPORT_<KEY>), else the declared default; secret keys
// are masked; keys nobody reads are reported (host/app/Settings.h).
#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include "app/Settings.h"

using rapport::ConfigKey;
using rapport::host::Settings;

namespace {

// A properties file with `lines`, removed with the object.
class PropertiesFile {
 public:
  explicit PropertiesFile(const std::string& lines) {
    path_ =
        std::filesystem::temp_directory_path() / ("rapport-config-" + std::to_string(::getpid()) +
                                                  "-" + std::to_string(counter_++) + ".properties");
    std::ofstream(path_) << lines;
  }
  ~PropertiesFile() { std::filesystem::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

// Settings from `file` lines and NAME=VALUE environment entries.
Settings load(const std::string& fileLines, std::vector<std::string> environment = {}) {
  PropertiesFile file(fileLines);
  std::vector<char*> env;
  for (auto& entry : environment) env.push_back(entry.data());
  env.push_back(nullptr);
  return Settings::load(file.path(), env.data());
}

const std::vector<ConfigKey> kWidgetKeys = {
    {"widgets.timeout", "10", "seconds per widget"},
    {"widgets.colour", "", "no default"},
    {"widgets.flags", "a, b", "a list"},
    {"widgets.enabled", "true", "a flag"},
    {"widgets.token", "", "an API token", true},
};

std::string effectiveValue(const Settings& settings, const std::string& key) {
  for (const auto& [name, value] : settings.effective()) {
    if (name == key) return value;
  }
  return "(absent)";
}

bool contains(const std::vector<std::string>& items, const std::string& item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

}  // namespace

class DeclaredConfigTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(DeclaredConfigTest);
  CPPUNIT_TEST(testDeclaredDefaultAnswersAnUnsetKey);
  CPPUNIT_TEST(testFileValueWinsOverTheDefault);
  CPPUNIT_TEST(testEmptyValueMeansTheDefault);
  CPPUNIT_TEST(testEnvironmentOverridesADeclaredKey);
  CPPUNIT_TEST(testUndeclaredEnvironmentVariableStaysUnknown);
  CPPUNIT_TEST(testGettersWithoutFallback);
  CPPUNIT_TEST(testKeyWithoutDefault);
  CPPUNIT_TEST(testSecretKeyIsMasked);
  CPPUNIT_TEST(testUnknownKeys);
  CPPUNIT_TEST(testHostNoLongerCarriesModuleKeys);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testDeclaredDefaultAnswersAnUnsetKey() {
    Settings settings = load("");
    CPPUNIT_ASSERT(!settings.has("widgets.timeout"));
    settings.declare(kWidgetKeys);
    CPPUNIT_ASSERT(settings.has("widgets.timeout"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(10), settings.getInt("widgets.timeout"));
    // The declared default wins over a fallback written in code.
    CPPUNIT_ASSERT_EQUAL(std::int64_t(10), settings.getInt("widgets.timeout", 99));
    CPPUNIT_ASSERT_EQUAL(std::string("10"), settings.getString("widgets.timeout", "99"));
    CPPUNIT_ASSERT(settings.isDeclared("widgets.timeout"));
    CPPUNIT_ASSERT(!settings.isDeclared("widgets.other"));
  }

  void testFileValueWinsOverTheDefault() {
    Settings settings = load("widgets.timeout = 25\n");
    settings.declare(kWidgetKeys);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(25), settings.getInt("widgets.timeout"));
  }

  void testEmptyValueMeansTheDefault() {
    Settings settings = load("widgets.timeout =\n", {"RAPPORT_WIDGETS_ENABLED="});
    settings.declare(kWidgetKeys);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(10), settings.getInt("widgets.timeout"));
    CPPUNIT_ASSERT_EQUAL(true, settings.getBool("widgets.enabled"));
  }

  void testEnvironmentOverridesADeclaredKey() {
    Settings settings =
        load("widgets.timeout = 25\n", {"RAPPORT_WIDGETS_TIMEOUT=40", "RAPPORT_WIDGETS_FLAGS=x"});
    // Before the module's keys are known, a variable for a key only the
    // file names applies; one for a key nobody named yet is unknown.
    CPPUNIT_ASSERT(contains(settings.unknownEnvironment(), "RAPPORT_WIDGETS_FLAGS"));
    settings.declare(kWidgetKeys);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(40), settings.getInt("widgets.timeout"));
    CPPUNIT_ASSERT(settings.getList("widgets.flags") == std::vector<std::string>{"x"});
    CPPUNIT_ASSERT(settings.unknownEnvironment().empty());
  }

  void testUndeclaredEnvironmentVariableStaysUnknown() {
    Settings settings = load("", {"RAPPORT_WIDGETS_TIMOUT=40", "RAPPORT_GADGETS_TIMEOUT=3"});
    settings.declare(kWidgetKeys);
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), settings.unknownEnvironment().size());
    CPPUNIT_ASSERT(contains(settings.unknownEnvironment(), "RAPPORT_WIDGETS_TIMOUT"));
    CPPUNIT_ASSERT(contains(settings.unknownEnvironment(), "RAPPORT_GADGETS_TIMEOUT"));
    CPPUNIT_ASSERT(!settings.has("widgets.timout"));
  }

  void testGettersWithoutFallback() {
    Settings settings = load("widgets.timeout = 0\n");
    settings.declare(kWidgetKeys);
    const rapport::Config& config = settings;  // as a module sees it
    CPPUNIT_ASSERT(config.getList("widgets.flags") == std::vector<std::string>({"a", "b"}));
    CPPUNIT_ASSERT_EQUAL(true, config.getBool("widgets.enabled"));
    CPPUNIT_ASSERT_EQUAL(std::string("0"), config.getString("widgets.timeout"));
    assertThrowsMessage([&] { config.getIntBetween("widgets.timeout", 1, 300); },
                        "widgets.timeout must be between 1 and 300 (got 0)");
    // A typo, or a key nobody declared: no silent fallback.
    assertThrowsMessage([&] { config.getInt("widgets.timout"); },
                        "configuration key widgets.timout is not set");
    assertThrowsMessage([&] { config.getBool("widgets.nothing"); },
                        "configuration key widgets.nothing is not set");
    assertThrowsMessage([&] { config.getList("widgets.nothing"); },
                        "configuration key widgets.nothing is not set");
  }

  void testKeyWithoutDefault() {
    Settings settings = load("");
    settings.declare(kWidgetKeys);
    CPPUNIT_ASSERT(!settings.has("widgets.colour"));
    CPPUNIT_ASSERT_EQUAL(std::string("red"), settings.getString("widgets.colour", "red"));
    assertThrowsMessage([&] { settings.getString("widgets.colour"); },
                        "configuration key widgets.colour is not set");
    Settings set = load("widgets.colour = green\n");
    set.declare(kWidgetKeys);
    CPPUNIT_ASSERT_EQUAL(std::string("green"), set.getString("widgets.colour"));
  }

  void testSecretKeyIsMasked() {
    Settings settings = load("widgets.token = abc123\n");
    settings.declare(kWidgetKeys);
    CPPUNIT_ASSERT_EQUAL(std::string("***"), effectiveValue(settings, "widgets.token"));
    CPPUNIT_ASSERT_EQUAL(std::string("abc123"), settings.getString("widgets.token"));
    CPPUNIT_ASSERT_EQUAL(std::string("10"), effectiveValue(settings, "widgets.timeout"));
    // Before the declaration nothing says it is a secret.
    CPPUNIT_ASSERT_EQUAL(std::string("abc123"),
                         effectiveValue(load("widgets.token = abc123\n"), "widgets.token"));
  }

  void testUnknownKeys() {
    Settings settings = load(
        "server.port = 9000\nwidgets.timeout = 5\nwidgets.timout = 5\ngadgets.size = 3\n"
        "versions = v1, v2\nversions.v2.status = beta\nversions.v3.status = beta\n");
    CPPUNIT_ASSERT(contains(settings.unknownKeys(), "widgets.timeout"));  // not declared yet
    settings.declare(kWidgetKeys);
    const std::vector<std::string> expected = {"gadgets.size", "versions.v3.status",
                                               "widgets.timout"};
    CPPUNIT_ASSERT(settings.unknownKeys() == expected);
    CPPUNIT_ASSERT(settings.isHostKey("server.port"));
    CPPUNIT_ASSERT(settings.isHostKey("versions.v2.status"));
    CPPUNIT_ASSERT(!settings.isHostKey("versions.v3.status"));
    CPPUNIT_ASSERT(!settings.isHostKey("widgets.timeout"));
  }

  // The webhooks module declares its keys: the host's table has none of them.
  void testHostNoLongerCarriesModuleKeys() {
    for (const auto& info : Settings::known()) {
      CPPUNIT_ASSERT_MESSAGE(info.key, info.key.rfind("webhooks.", 0) != 0);
    }
    CPPUNIT_ASSERT(!load("").has("webhooks.timeout"));
  }

 private:
  template <typename F>
  static void assertThrowsMessage(F call, const std::string& message) {
    try {
      call();
    } catch (const std::invalid_argument& e) {
      CPPUNIT_ASSERT_EQUAL(message, std::string(e.what()));
      return;
    }
    CPPUNIT_FAIL("no std::invalid_argument: " + message);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(DeclaredConfigTest);
