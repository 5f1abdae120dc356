// Configuration owned by modules, seen from outside rapportd: --help lists
// each enabled module's keys under it, --print-config shows their effective
// values (file, RAPPORT_<KEY>, declared default; secrets masked), the module
// reads the same values, a key nobody reads is reported at start-up, and a
// declaration outside the module's prefix stops start-up.
#include <cppunit/extensions/HelperMacros.h>

#include <filesystem>
#include <string>
#include <vector>

#include "e2e/common/Api.h"
#include "support/TestEnv.h"

using namespace rapport::e2e;

namespace {

// The first-party modules (webhooks) and the fixtures (config_keys, probe).
std::string bothModuleDirs() {
  return std::string(RAPPORT_BUILD_DIR) + "/modules:" + testModulesDir();
}

ServerProcess::Settings withModules(const std::string& enabled,
                                    ServerProcess::Settings extra = {}) {
  extra.emplace("modules.dir", bothModuleDirs());
  extra.emplace("modules.enabled", enabled);
  return generousSettings(std::move(extra));
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::string::size_type start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

bool hasLine(const std::string& text, const std::string& line) {
  for (const auto& l : lines(text)) {
    if (l == line) return true;
  }
  return false;
}

// The lines after `heading`, up to the next empty line (one module's block).
std::vector<std::string> section(const std::string& text, const std::string& heading) {
  std::vector<std::string> out;
  bool inside = false;
  for (const auto& line : lines(text)) {
    if (inside && line.empty()) break;
    if (inside) out.push_back(line);
    if (line == heading) inside = true;
  }
  return out;
}

std::string runExpectingSuccess(const ServerProcess::Settings& settings,
                                const std::vector<std::string>& args,
                                const ServerProcess::Environment& environment = {}) {
  std::string output;
  const int code = ServerProcess::runToCompletion(settings, args, output, "", environment);
  CPPUNIT_ASSERT_EQUAL_MESSAGE(output, 0, code);
  CPPUNIT_ASSERT_MESSAGE(output, linesContaining(output, "msg=listening").empty());
  return output;
}

}  // namespace

class ModuleConfigTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ModuleConfigTest);
  CPPUNIT_TEST(testHelpListsWebhooksKeysUnderTheModule);
  CPPUNIT_TEST(testHelpSaysWhichModuleCannotBeLoaded);
  CPPUNIT_TEST(testHelpWithAnUnreadableConfiguration);
  CPPUNIT_TEST(testPrintConfigShowsModuleValues);
  CPPUNIT_TEST(testModuleReadsDeclaredDefaults);
  CPPUNIT_TEST(testModuleReadsFileAndEnvironment);
  CPPUNIT_TEST(testKeysOfADisabledModuleAreUnknown);
  CPPUNIT_TEST(testUndeclaredKeyUnderAnEnabledModuleIsUnknown);
  CPPUNIT_TEST(testKeyOutsideItsPrefixStopsStartUp);
  CPPUNIT_TEST(testBadValueOfADeclaredKeyStopsStartUp);
  CPPUNIT_TEST_SUITE_END();

 public:
  // With the defaults (every first-party module, beside rapportd), the
  // webhooks keys are under the webhooks module with their defaults, and
  // no longer among the host's.
  void testHelpListsWebhooksKeysUnderTheModule() {
    const std::string output = runExpectingSuccess({}, {"--help"});
    const std::string heading = "Module webhooks (rapport_webhooks.so 1.0.0):";
    const auto webhooks = section(output, heading);
    CPPUNIT_ASSERT_MESSAGE(output, contains(webhooks, "  webhooks.timeout = 10"));
    CPPUNIT_ASSERT_MESSAGE(
        output,
        contains(webhooks, "      seconds per delivery attempt  [RAPPORT_WEBHOOKS_TIMEOUT]"));
    CPPUNIT_ASSERT_MESSAGE(
        output, contains(webhooks, "  webhooks.retry_schedule = 0,60,300,1800,7200,21600"));
    CPPUNIT_ASSERT_MESSAGE(output, contains(webhooks, "  webhooks.allow_private_targets = false"));
    CPPUNIT_ASSERT_MESSAGE(output, contains(webhooks, "  webhooks.ca_file = "));
    CPPUNIT_ASSERT_MESSAGE(output, contains(webhooks, "  webhooks.workers = 4"));
    CPPUNIT_ASSERT_MESSAGE(output, contains(webhooks, "  webhooks.delivery_retention_days = 30"));
    // After the host's keys, and only there.
    CPPUNIT_ASSERT_MESSAGE(output, output.find("  server.port = 8080") < output.find(heading));
    CPPUNIT_ASSERT_EQUAL_MESSAGE(output, std::size_t(1),
                                 linesContaining(output, "  webhooks.timeout = ").size());
    // A module without keys says so.
    CPPUNIT_ASSERT_MESSAGE(output,
                           contains(section(output, "Module contacts (rapport_contacts.so 1.0.0):"),
                                    "  (no configuration keys)"));
  }

  void testHelpSaysWhichModuleCannotBeLoaded() {
    const std::string output =
        runExpectingSuccess(withModules("config_keys, bad_config_key, no_such_module"), {"--help"});
    CPPUNIT_ASSERT_MESSAGE(output, hasLine(output, "  server.port = 8080"));
    const auto keys = section(output, "Module config_keys (rapport_config_keys.so 1.2.3):");
    CPPUNIT_ASSERT_MESSAGE(output, contains(keys, "  config_keys.limit = 5"));
    CPPUNIT_ASSERT_MESSAGE(
        output, contains(keys, "      a vendor's key  [RAPPORT_CONFIG_KEYS_API_KEY] (secret)"));
    CPPUNIT_ASSERT_MESSAGE(output,
                           hasLine(output,
                                   "Module bad_config_key: not loaded: module 'bad_config_key' "
                                   "declares configuration key 'elsewhere.timeout' outside its "
                                   "prefix 'bad_config_key.'"));
    CPPUNIT_ASSERT_MESSAGE(
        output, hasLine(output,
                        "Module no_such_module: not loaded: module "
                        "'no_such_module' not found: no "
                        "rapport_no_such_module.so in " +
                            std::string(RAPPORT_BUILD_DIR) + "/modules, " + testModulesDir()));
  }

  // The host's keys still print, and the line says why no module is listed.
  void testHelpWithAnUnreadableConfiguration() {
    std::string output;
    const int code =
        ServerProcess::runBare({"--config", "/nonexistent/rapport.properties", "--help"},
                               std::filesystem::temp_directory_path().string(), output);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(output, 0, code);
    CPPUNIT_ASSERT_MESSAGE(output, hasLine(output, "  server.port = 8080"));
    CPPUNIT_ASSERT_MESSAGE(output, hasLine(output,
                                           "Modules not listed: configuration file not "
                                           "found: /nonexistent/rapport.properties"));
    CPPUNIT_ASSERT_MESSAGE(output, output.find("Module webhooks") == std::string::npos);
  }

  void testPrintConfigShowsModuleValues() {
    const std::string output = runExpectingSuccess(
        withModules("webhooks, config_keys", {{"webhooks.timeout", "25"},
                                              {"config_keys.api_key", "sk-very-secret-1234"},
                                              {"config_keys.greeting", "from the file"}}),
        {"--print-config"},
        {{"RAPPORT_WEBHOOKS_WORKERS", "7"}, {"RAPPORT_CONFIG_KEYS_GREETING", "from env"}});
    const auto webhooks = section(output, "# Module webhooks (rapport_webhooks.so 1.0.0):");
    CPPUNIT_ASSERT_MESSAGE(output, contains(webhooks, "webhooks.timeout = 25"));  // the file
    CPPUNIT_ASSERT_MESSAGE(output, contains(webhooks, "webhooks.workers = 7"));   // environment
    CPPUNIT_ASSERT_MESSAGE(output, contains(webhooks, "webhooks.delivery_retention_days = 30"));
    CPPUNIT_ASSERT_MESSAGE(output, contains(webhooks, "webhooks.ca_file = "));
    const auto keys = section(output, "# Module config_keys (rapport_config_keys.so 1.2.3):");
    CPPUNIT_ASSERT_MESSAGE(output, contains(keys, "config_keys.greeting = from env"));
    CPPUNIT_ASSERT_MESSAGE(output, contains(keys, "config_keys.limit = 5"));
    CPPUNIT_ASSERT_MESSAGE(output, contains(keys, "config_keys.api_key = ***"));
    CPPUNIT_ASSERT_MESSAGE(output, output.find("sk-very-secret") == std::string::npos);
    CPPUNIT_ASSERT_MESSAGE(output, output.find("# Unknown keys") == std::string::npos);
  }

  void testModuleReadsDeclaredDefaults() {
    ServerProcess server(withModules("config_keys"));
    HttpClient client(server.port());
    const Json values = E2E_ASSERT_DATA(200, client.get("/v1/config_keys/values"));
    CPPUNIT_ASSERT_EQUAL(std::string("hello"), values["greeting"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(5), values["limit"].asInt());
    CPPUNIT_ASSERT_EQUAL(false, values["api_key_set"].asBool());
    CPPUNIT_ASSERT_MESSAGE(server.log(), linesContaining(server.log(), "unknown").empty());
  }

  void testModuleReadsFileAndEnvironment() {
    ServerProcess server(
        withModules("config_keys", {{"config_keys.limit", "50"}, {"config_keys.greeting", "hi"}}),
        {}, {{"RAPPORT_CONFIG_KEYS_LIMIT", "60"}, {"RAPPORT_CONFIG_KEYS_API_KEY", "k"}});
    HttpClient client(server.port());
    const Json values = E2E_ASSERT_DATA(200, client.get("/v1/config_keys/values"));
    CPPUNIT_ASSERT_EQUAL(std::string("hi"), values["greeting"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(60), values["limit"].asInt());
    CPPUNIT_ASSERT_EQUAL(true, values["api_key_set"].asBool());
    CPPUNIT_ASSERT_MESSAGE(server.log(), linesContaining(server.log(), "unknown").empty());
  }

  // The unknown-key policy (a warning each at start-up, the server starts)
  // covers a disabled module's keys, from the file and from the environment.
  void testKeysOfADisabledModuleAreUnknown() {
    const ServerProcess::Settings settings = withModules("probe", {{"webhooks.timeout", "25"}});
    const ServerProcess::Environment environment{{"RAPPORT_WEBHOOKS_WORKERS", "7"}};
    ServerProcess server(settings, {}, environment);
    HttpClient client(server.port());
    E2E_ASSERT_STATUS(404, client.get("/v1/webhooks/events"));
    const std::string log = server.log();
    CPPUNIT_ASSERT_MESSAGE(log, linesContaining(log,
                                                "msg=\"unknown configuration key ignored\" "
                                                "key=webhooks.timeout")
                                        .size() == 1);
    CPPUNIT_ASSERT_MESSAGE(log, linesContaining(log,
                                                "msg=\"unknown configuration variable "
                                                "ignored\" name=RAPPORT_WEBHOOKS_WORKERS")
                                        .size() == 1);

    // --print-config shows the file's key apart, commented out.
    const std::string output = runExpectingSuccess(settings, {"--print-config"}, environment);
    CPPUNIT_ASSERT_MESSAGE(output, hasLine(output, "# webhooks.timeout = 25"));
    CPPUNIT_ASSERT_MESSAGE(output, !hasLine(output, "webhooks.timeout = 25"));
    CPPUNIT_ASSERT_MESSAGE(output, output.find("# Module webhooks") == std::string::npos);
    CPPUNIT_ASSERT_MESSAGE(output, output.find("webhooks.workers") == std::string::npos);
  }

  void testUndeclaredKeyUnderAnEnabledModuleIsUnknown() {
    ServerProcess server(withModules("config_keys", {{"config_keys.limt", "9"}}), {},
                         {{"RAPPORT_CONFIG_KEYS_GRETING", "x"}});
    const std::string log = server.log();
    CPPUNIT_ASSERT_MESSAGE(
        log, linesContaining(log, "msg=\"unknown configuration key ignored\" key=config_keys.limt")
                     .size() == 1);
    CPPUNIT_ASSERT_MESSAGE(log, linesContaining(log,
                                                "msg=\"unknown configuration variable "
                                                "ignored\" name=RAPPORT_CONFIG_KEYS_GRETING")
                                        .size() == 1);
    HttpClient client(server.port());
    const Json values = E2E_ASSERT_DATA(200, client.get("/v1/config_keys/values"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(5), values["limit"].asInt());
  }

  void testKeyOutsideItsPrefixStopsStartUp() {
    std::string output;
    const int code =
        ServerProcess::runToCompletion(withModules("probe, bad_config_key"), {}, output);
    CPPUNIT_ASSERT_MESSAGE(output, code != 0 && code < 128);
    CPPUNIT_ASSERT_MESSAGE(output, linesContaining(output, "msg=listening").empty());
    CPPUNIT_ASSERT_MESSAGE(output, linesContaining(output,
                                                   "module 'bad_config_key' declares configuration "
                                                   "key 'elsewhere.timeout' outside its prefix "
                                                   "'bad_config_key.'")
                                           .size() == 1);
  }

  void testBadValueOfADeclaredKeyStopsStartUp() {
    std::string output;
    const int code = ServerProcess::runToCompletion(
        withModules("config_keys", {{"config_keys.limit", "0"}}), {}, output);
    CPPUNIT_ASSERT_MESSAGE(output, code != 0 && code < 128);
    CPPUNIT_ASSERT_MESSAGE(output, linesContaining(output,
                                                   "module 'config_keys' failed to set up: "
                                                   "config_keys.limit must be between 1 and 100 "
                                                   "(got 0)")
                                           .size() == 1);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ModuleConfigTest);
