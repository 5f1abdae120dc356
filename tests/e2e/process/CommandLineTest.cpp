// rapportd as a program (decisions §12): --help, migrate, configuration file
// and RAPPORT_<KEY> environment overrides.
#include <cppunit/extensions/HelperMacros.h>

#include <cctype>
#include <regex>
#include <set>

#include "e2e/common/Api.h"
#include "support/TestEnv.h"

using namespace rapport::e2e;

namespace {

// "migrations applied: N" from `rapportd migrate`; -1 when absent.
int appliedCount(const std::string& output) {
  static const std::regex pattern(R"(migrations applied:\s*(\d+))");
  std::smatch m;
  return std::regex_search(output, m, pattern) ? std::stoi(m[1]) : -1;
}

// Every key decisions §12 names, with its default ("" when unset).
const std::vector<std::pair<std::string, std::string>>& documentedKeys() {
  static const std::vector<std::pair<std::string, std::string>> keys = [] {
    std::vector<std::pair<std::string, std::string>> k = {
        {"server.host", "127.0.0.1"},
        {"server.port", "8080"},
        {"database.url", "sqlite:data/rapport.db"},
        {"modules.dir", ""},
        {"modules.enabled", ""},
        {"auth.token_ttl", "3600"},
        {"auth.remember_ttl", "2592000"},
        {"auth.two_factor_status", "403"},
        {"ratelimit.requests", "60"},
        {"ratelimit.window", "60"},
        {"mail.outbox", "data/outbox"},
        {"mail.smtp.host", ""},
        {"mail.smtp.port", "25"},
        {"mail.from", "no-reply@localhost"},
        {"webhooks.retry_schedule", "0,60,300,1800,7200,21600"},
        {"webhooks.timeout", "10"},
        {"webhooks.allow_private_targets", "false"},
        {"webhooks.ca_file", ""},
        {"social.redirect_allowlist", ""},
    };
    for (const char* provider : {"google", "github", "microsoft"}) {
      for (const char* field :
           {"client_id", "client_secret", "authorize_url", "token_url", "userinfo_url"}) {
        k.emplace_back(std::string("social.") + provider + "." + field, "");
      }
    }
    return k;
  }();
  return keys;
}

}  // namespace

class CommandLineTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(CommandLineTest);
  CPPUNIT_TEST(testHelpListsEveryKeyWithItsDefault);
  CPPUNIT_TEST(testHelpShowsProviderUrlDefaults);
  CPPUNIT_TEST(testUnknownCommandFails);
  CPPUNIT_TEST(testMigrateTwice);
  CPPUNIT_TEST(testEnvironmentOverridesTheFile);
  CPPUNIT_TEST(testPrintConfigShowsOverridesAndMasksSecrets);
  CPPUNIT_TEST(testKeysListedByHelpTakeEffect);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testHelpListsEveryKeyWithItsDefault() {
    std::string output;
    const int code = ServerProcess::runToCompletion({}, {"--help"}, output);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(output, 0, code);
    CPPUNIT_ASSERT_MESSAGE(output, linesContaining(output, "msg=listening").empty());
    for (const auto& [key, defaultValue] : documentedKeys()) {
      bool listed = false, withDefault = defaultValue.empty();
      for (const auto& line : linesContaining(output, key)) {
        // The key itself, not a longer key that starts with it.
        const auto at = line.find(key);
        const char after = at + key.size() < line.size() ? line[at + key.size()] : ' ';
        if (after == '.' || after == '_' || std::isalnum(static_cast<unsigned char>(after)))
          continue;
        listed = true;
        if (!defaultValue.empty() &&
            line.find(defaultValue, at + key.size()) != std::string::npos) {
          withDefault = true;
        }
      }
      CPPUNIT_ASSERT_MESSAGE(key + " not listed:\n" + output, listed);
      CPPUNIT_ASSERT_MESSAGE(key + " listed without its default " + defaultValue + ":\n" + output,
                             withDefault);
    }
    // And how to override them.
    CPPUNIT_ASSERT_MESSAGE(output, output.find("RAPPORT_RATELIMIT_REQUESTS") != std::string::npos);
  }

  // decisions §12: provider URLs default to the providers' real endpoints,
  // and --help shows every key with its default.
  void testHelpShowsProviderUrlDefaults() {
    std::string output;
    CPPUNIT_ASSERT_EQUAL(0, ServerProcess::runToCompletion({}, {"--help"}, output));
    for (const char* provider : {"google", "github", "microsoft"}) {
      for (const char* field : {"authorize_url", "token_url", "userinfo_url"}) {
        const std::string key = std::string("social.") + provider + "." + field;
        bool https = false;
        for (const auto& line : linesContaining(output, key + " = ")) {
          https = https || line.find(key + " = https://") != std::string::npos;
        }
        CPPUNIT_ASSERT_MESSAGE(key + " has no https default in --help:\n" + output, https);
      }
    }
  }

  void testUnknownCommandFails() {
    std::string output;
    const int code = ServerProcess::runToCompletion({}, {"frobnicate"}, output);
    CPPUNIT_ASSERT_MESSAGE(output, code != 0 && code < 128);
    CPPUNIT_ASSERT_MESSAGE(output, output.find("frobnicate") != std::string::npos);
  }

  void testMigrateTwice() {
    const std::string database = rapport::test::freshDatabaseUrl("migrate");
    const ServerProcess::Settings settings = probeSettings();
    std::string first;
    CPPUNIT_ASSERT_EQUAL_MESSAGE(
        first, 0, ServerProcess::runToCompletion(settings, {"migrate"}, first, database));
    CPPUNIT_ASSERT_MESSAGE(first, linesContaining(first, "msg=listening").empty());
    const auto ledger = queryDatabase(database, "SELECT owner, id FROM schema_migrations");
    std::set<std::string> owners;
    for (const auto& row : ledger) owners.insert(row[0]);
    CPPUNIT_ASSERT_MESSAGE(first, owners.count("host") == 1 && owners.count("probe") == 1);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(first, static_cast<int>(ledger.size()), appliedCount(first));

    std::string second;
    CPPUNIT_ASSERT_EQUAL_MESSAGE(
        second, 0, ServerProcess::runToCompletion(settings, {"migrate"}, second, database));
    CPPUNIT_ASSERT_EQUAL_MESSAGE(second, 0, appliedCount(second));
    CPPUNIT_ASSERT_EQUAL(ledger.size(),
                         queryDatabase(database, "SELECT owner, id FROM schema_migrations").size());

    // A server on the migrated database applies nothing more and serves.
    ServerProcess::Settings serve = settings;
    serve["database.url"] = database;
    ServerProcess server(serve);
    CPPUNIT_ASSERT_MESSAGE(server.log(),
                           linesContaining(server.log(), "migration applied").empty());
    HttpClient client(server.port());
    const Account account = registerUser(client, "migrated");
    E2E_ASSERT_DATA(
        201, client.post("/v1/probe/notes", Json::object({{"body", "x"}}), bearer(account.token)));
  }

  void testEnvironmentOverridesTheFile() {
    ServerProcess server({{"ratelimit.requests", "50"}, {"auth.token_ttl", "3600"}}, {},
                         {{"RAPPORT_RATELIMIT_REQUESTS", "3"}, {"RAPPORT_AUTH_TOKEN_TTL", "120"}});
    HttpClient client(server.port());
    const HttpResult result = client.get("/v1/versions");
    E2E_ASSERT_STATUS(200, result);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(result), std::int64_t(3),
                                 headerInt(result, "X-RateLimit-Limit"));
    const Account account = registerUser(client, "env");
    const Json me = E2E_ASSERT_DATA(200, login(client, account.email, account.password));
    CPPUNIT_ASSERT_EQUAL_MESSAGE(me.dump(), std::int64_t(120), me["expires_in"].asInt());
  }

  void testPrintConfigShowsOverridesAndMasksSecrets() {
    std::string output;
    const int code = ServerProcess::runToCompletion(
        {{"ratelimit.requests", "50"},
         {"social.google.client_secret", "hunter2-very-secret"},
         {"secrets.key", "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE="},
         {"secrets.key_file", "keys/rapport.key"}},
        {"--print-config"}, output, "", {{"RAPPORT_RATELIMIT_REQUESTS", "3"}});
    CPPUNIT_ASSERT_EQUAL_MESSAGE(output, 0, code);
    CPPUNIT_ASSERT_MESSAGE(output, !linesContaining(output, "ratelimit.requests = 3").empty());
    CPPUNIT_ASSERT_MESSAGE(output, linesContaining(output, "ratelimit.requests = 50").empty());
    CPPUNIT_ASSERT_MESSAGE(output, output.find("hunter2-very-secret") == std::string::npos);
    CPPUNIT_ASSERT_MESSAGE(output, output.find("AQEBAQEB") == std::string::npos);
    // A path to a secret is shown: it is not the secret.
    CPPUNIT_ASSERT_MESSAGE(output,
                           !linesContaining(output, "secrets.key_file = keys/rapport.key").empty());
    CPPUNIT_ASSERT_MESSAGE(output, linesContaining(output, "msg=listening").empty());
  }

  // A key that --help documents is one the server reads: the login
  // throttle's attempts (decisions §3 fixes the default, 5; the key is the
  // server's own).
  void testKeysListedByHelpTakeEffect() {
    std::string help;
    ServerProcess::runToCompletion({}, {"--help"}, help);
    const std::string key = "auth.login.max_attempts";
    CPPUNIT_ASSERT_MESSAGE("no login-attempts key with default 5 in --help:\n" + help,
                           help.find(key + " = 5") != std::string::npos);
    ServerProcess server(generousSettings({{key, "2"}}));
    HttpClient client(server.port());
    const Account account = registerUser(client, "twotries");
    E2E_ASSERT_ERROR(401, login(client, account.email, "wrong one"));
    E2E_ASSERT_ERROR(401, login(client, account.email, "wrong two"));
    E2E_ASSERT_ERROR(429, login(client, account.email, account.password));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(CommandLineTest);
