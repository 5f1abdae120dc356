// What the host does with the keys a module declares: refuses a key outside
// "<module>." or declared twice (ModuleConfiguration.h), reads the enabled
// modules' declarations for --help and --print-config without setting them
// up, and prints them under each module (ConfigurationListing.h).
#include <cppunit/extensions/HelperMacros.h>

#include <sstream>
#include <string>
#include <vector>

#include "app/ConfigurationListing.h"
#include "app/ModuleConfiguration.h"

using rapport::ConfigKey;
using rapport::ModuleInfo;
using rapport::host::checkDeclaredKeys;
using rapport::host::ModuleConfigurationError;
using rapport::host::ModuleSummary;
using rapport::host::Settings;

namespace {

ModuleInfo moduleWith(std::vector<ConfigKey> keys) {
  return {.name = "widgets",
          .version = "2.1.0",
          .description = "test",
          .dependencies = {},
          .optional = {},
          .configuration = std::move(keys)};
}

std::string refusalOf(const ModuleInfo& info) {
  try {
    checkDeclaredKeys(info);
  } catch (const ModuleConfigurationError& e) {
    return e.what();
  }
  return "(accepted)";
}

Settings settingsWith(const std::vector<std::pair<std::string, std::string>>& values) {
  char* noEnvironment[] = {nullptr};
  Settings settings = Settings::load("", noEnvironment);
  for (const auto& [key, value] : values) settings.set(key, value);
  return settings;
}

const ModuleSummary kWidgets{.name = "widgets",
                             .file = "rapport_widgets.so",
                             .version = "2.1.0",
                             .keys = {{"widgets.timeout", "10", "seconds per widget"},
                                      {"widgets.ca_file", "", "extra CA"},
                                      {"widgets.api_key", "", "the vendor's key", true}},
                             .error = ""};
const ModuleSummary kMissing{.name = "gadgets",
                             .file = "",
                             .version = "",
                             .keys = {},
                             .error = "module 'gadgets' not found: no rapport_gadgets.so in /m"};

bool hasLine(const std::string& text, const std::string& line) {
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    if (l == line) return true;
  }
  return false;
}

}  // namespace

class ModuleKeysTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ModuleKeysTest);
  CPPUNIT_TEST(testAcceptsKeysUnderItsPrefix);
  CPPUNIT_TEST(testRefusesKeyOutsideItsPrefix);
  CPPUNIT_TEST(testRefusesDuplicateKey);
  CPPUNIT_TEST(testRefusesBadCharacters);
  CPPUNIT_TEST(testRefusesHostKey);
  CPPUNIT_TEST(testSummariesOfFixtureModules);
  CPPUNIT_TEST(testSummaryWithAModuleMissing);
  CPPUNIT_TEST(testHelpListsModuleKeysAfterTheHost);
  CPPUNIT_TEST(testPrintConfigGroupsMasksAndReportsUnknown);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testAcceptsKeysUnderItsPrefix() {
    CPPUNIT_ASSERT_EQUAL(std::string("(accepted)"), refusalOf(moduleWith({})));
    CPPUNIT_ASSERT_EQUAL(std::string("(accepted)"),
                         refusalOf(moduleWith({{"widgets.timeout", "10", "s"},
                                               {"widgets.retry-after.max_2", "", "d", true}})));
  }

  void testRefusesKeyOutsideItsPrefix() {
    CPPUNIT_ASSERT_EQUAL(std::string("module 'widgets' declares configuration key "
                                     "'gadgets.timeout' outside its prefix 'widgets.'"),
                         refusalOf(moduleWith({{"gadgets.timeout", "10", "s"}})));
    // A longer name that starts with the module's is not its prefix.
    CPPUNIT_ASSERT_EQUAL(std::string("module 'widgets' declares configuration key "
                                     "'widgetsx.timeout' outside its prefix 'widgets.'"),
                         refusalOf(moduleWith({{"widgetsx.timeout", "10", "s"}})));
    CPPUNIT_ASSERT_EQUAL(
        std::string("module 'widgets' declares configuration key 'widgets.' outside its "
                    "prefix 'widgets.'"),
        refusalOf(moduleWith({{"widgets.", "", "s"}})));
    CPPUNIT_ASSERT_EQUAL(std::string("module 'widgets' declares configuration key 'timeout' "
                                     "outside its prefix 'widgets.'"),
                         refusalOf(moduleWith({{"timeout", "", "s"}})));
  }

  void testRefusesDuplicateKey() {
    CPPUNIT_ASSERT_EQUAL(
        std::string("module 'widgets' declares configuration key 'widgets.timeout' twice"),
        refusalOf(moduleWith({{"widgets.timeout", "10", "s"},
                              {"widgets.other", "", "o"},
                              {"widgets.timeout", "20", "again"}})));
  }

  void testRefusesBadCharacters() {
    for (const char* key : {"widgets.Timeout", "widgets.time out", "widgets.a=b"}) {
      CPPUNIT_ASSERT_EQUAL(std::string("module 'widgets' declares configuration key '") + key +
                               "': use lowercase letters, digits, '_', '-' and '.'",
                           refusalOf(moduleWith({{key, "", "s"}})));
    }
  }

  // A module named like one of the host's prefixes cannot take its keys.
  void testRefusesHostKey() {
    ModuleInfo mail = moduleWith({{"mail.from", "x@y", "s"}});
    mail.name = "mail";
    CPPUNIT_ASSERT_EQUAL(
        std::string("module 'mail' declares configuration key 'mail.from', which is a key of "
                    "the host"),
        refusalOf(mail));
  }

  // probe_dependent needs probe: read together, each one's info comes back;
  // bad_config_key loads but its declaration is refused.
  void testSummariesOfFixtureModules() {
    const Settings settings =
        settingsWith({{"modules.dir", RAPPORT_TEST_MODULES_DIR},
                      {"modules.enabled", "probe_dependent, bad_config_key, probe"}});
    const std::vector<ModuleSummary> modules =
        rapport::host::summarizeEnabledModules(settings, "/nowhere");
    CPPUNIT_ASSERT_EQUAL(std::size_t(3), modules.size());
    CPPUNIT_ASSERT_EQUAL(std::string("probe_dependent"), modules[0].name);
    CPPUNIT_ASSERT_EQUAL(std::string(""), modules[0].error);
    CPPUNIT_ASSERT_EQUAL(std::string("rapport_probe_dependent.so"), modules[0].file);
    CPPUNIT_ASSERT_EQUAL(std::string("bad_config_key"), modules[1].name);
    CPPUNIT_ASSERT_EQUAL(std::string("module 'bad_config_key' declares configuration key "
                                     "'elsewhere.timeout' outside its prefix 'bad_config_key.'"),
                         modules[1].error);
    CPPUNIT_ASSERT_EQUAL(std::string("probe"), modules[2].name);
    CPPUNIT_ASSERT_EQUAL(std::string(""), modules[2].error);
  }

  // One module missing: it says why, its dependent is still read with its
  // dependency, and nothing throws.
  void testSummaryWithAModuleMissing() {
    const Settings settings =
        settingsWith({{"modules.dir", RAPPORT_TEST_MODULES_DIR},
                      {"modules.enabled", "no_such_module,probe_dependent,probe"}});
    const std::vector<ModuleSummary> modules =
        rapport::host::summarizeEnabledModules(settings, "/nowhere");
    CPPUNIT_ASSERT_EQUAL(std::size_t(3), modules.size());
    CPPUNIT_ASSERT_EQUAL(std::string("module 'no_such_module' not found: no "
                                     "rapport_no_such_module.so in " RAPPORT_TEST_MODULES_DIR),
                         modules[0].error);
    CPPUNIT_ASSERT_EQUAL(std::string(""), modules[1].error);
    CPPUNIT_ASSERT_EQUAL(std::string(""), modules[2].error);

    // probe_dependent without probe enabled: the loader's own reason.
    const std::vector<ModuleSummary> alone = rapport::host::summarizeEnabledModules(
        settingsWith(
            {{"modules.dir", RAPPORT_TEST_MODULES_DIR}, {"modules.enabled", "probe_dependent"}}),
        "/nowhere");
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), alone.size());
    CPPUNIT_ASSERT_EQUAL(
        std::string("module 'probe_dependent' requires module 'probe', which is not enabled"),
        alone[0].error);
  }

  void testHelpListsModuleKeysAfterTheHost() {
    std::ostringstream out;
    rapport::host::printKeyReference(out, {kWidgets, kMissing});
    const std::string text = out.str();
    CPPUNIT_ASSERT_MESSAGE(text, hasLine(text, "Module widgets (rapport_widgets.so 2.1.0):"));
    CPPUNIT_ASSERT_MESSAGE(text, hasLine(text, "  widgets.timeout = 10"));
    CPPUNIT_ASSERT_MESSAGE(text,
                           hasLine(text, "      seconds per widget  [RAPPORT_WIDGETS_TIMEOUT]"));
    CPPUNIT_ASSERT_MESSAGE(
        text, hasLine(text, "      the vendor's key  [RAPPORT_WIDGETS_API_KEY] (secret)"));
    CPPUNIT_ASSERT_MESSAGE(text, hasLine(text,
                                         "Module gadgets: not loaded: module 'gadgets' not "
                                         "found: no rapport_gadgets.so in /m"));
    CPPUNIT_ASSERT_MESSAGE(text, text.find("  server.port = 8080") < text.find("Module widgets"));
    CPPUNIT_ASSERT_MESSAGE(text, text.find("Module widgets") < text.find("Module gadgets"));
  }

  void testPrintConfigGroupsMasksAndReportsUnknown() {
    const Settings settings = settingsWith({{"widgets.timeout", "25"},
                                            {"widgets.api_key", "s3cr3t-value"},
                                            {"gadgets.size", "3"},
                                            {"widgets.timout", "7"}});
    std::ostringstream out;
    rapport::host::printEffectiveConfiguration(out, settings, {kWidgets, kMissing});
    const std::string text = out.str();
    CPPUNIT_ASSERT_MESSAGE(text, hasLine(text, "server.port = 8080"));
    CPPUNIT_ASSERT_MESSAGE(text, hasLine(text, "# Module widgets (rapport_widgets.so 2.1.0):"));
    CPPUNIT_ASSERT_MESSAGE(text, hasLine(text, "widgets.timeout = 25"));
    CPPUNIT_ASSERT_MESSAGE(text, hasLine(text, "widgets.ca_file = "));
    CPPUNIT_ASSERT_MESSAGE(text, hasLine(text, "widgets.api_key = ***"));
    CPPUNIT_ASSERT_MESSAGE(text, text.find("s3cr3t") == std::string::npos);
    CPPUNIT_ASSERT_MESSAGE(text, hasLine(text,
                                         "# Module gadgets: not loaded: module 'gadgets' not "
                                         "found: no rapport_gadgets.so in /m"));
    CPPUNIT_ASSERT_MESSAGE(text, hasLine(text, "# gadgets.size = 3"));
    CPPUNIT_ASSERT_MESSAGE(text, hasLine(text, "# widgets.timout = 7"));
    CPPUNIT_ASSERT_MESSAGE(text, !hasLine(text, "gadgets.size = 3"));
    // Order: host keys, modules, unknown keys.
    CPPUNIT_ASSERT_MESSAGE(text, text.find("server.port") < text.find("# Module widgets"));
    CPPUNIT_ASSERT_MESSAGE(text, text.find("# Module gadgets") < text.find("# Unknown keys"));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ModuleKeysTest);
