// Where rapportd finds its configuration when none is named (decisions §12,
// README "Running rapportd"): no arguments means SQLite under ./data;
// config/rapport.properties in the working directory is read; RAPPORT_CONFIG
// names another file; RAPPORT_<KEY> overrides what the file says. `migrate`
// proves each choice without opening a port.
#include <cppunit/extensions/HelperMacros.h>

#include <Poco/File.h>

#include <fstream>

#include "e2e/common/Api.h"
#include "support/TestEnv.h"

using namespace rapport::e2e;

namespace {

bool exists(const std::string& path) {
  return Poco::File(path).exists();
}

void writeFile(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

std::size_t hostMigrations(const std::string& sqliteFile) {
  std::size_t count = 0;
  for (const auto& row :
       queryDatabase("sqlite:" + sqliteFile, "SELECT owner FROM schema_migrations")) {
    if (row[0] == "host") ++count;
  }
  return count;
}

}  // namespace

class DefaultsTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(DefaultsTest);
  CPPUNIT_TEST(testNoArgumentsMeansSqliteUnderData);
  CPPUNIT_TEST(testConfigFolderIsRead);
  CPPUNIT_TEST(testRapportConfigNamesTheFile);
  CPPUNIT_TEST(testEnvironmentBeatsTheDefaultFile);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testNoArgumentsMeansSqliteUnderData() {
    const std::string dir = rapport::test::tempDirectory("defaults");
    std::string output;
    CPPUNIT_ASSERT_EQUAL_MESSAGE(output, 0, ServerProcess::runBare({"migrate"}, dir, output));
    CPPUNIT_ASSERT_MESSAGE(output, exists(dir + "/data/rapport.db"));
    CPPUNIT_ASSERT_MESSAGE(output, hostMigrations(dir + "/data/rapport.db") > 0);
  }

  void testConfigFolderIsRead() {
    const std::string dir = rapport::test::tempDirectory("configdir");
    Poco::File(dir + "/config").createDirectories();
    writeFile(dir + "/config/rapport.properties", "database.url = sqlite:from-config.db\n");
    std::string output;
    CPPUNIT_ASSERT_EQUAL_MESSAGE(output, 0, ServerProcess::runBare({"migrate"}, dir, output));
    CPPUNIT_ASSERT_MESSAGE(output, exists(dir + "/from-config.db"));
    CPPUNIT_ASSERT_MESSAGE(output, !exists(dir + "/data/rapport.db"));
    CPPUNIT_ASSERT_MESSAGE(output, hostMigrations(dir + "/from-config.db") > 0);
  }

  void testRapportConfigNamesTheFile() {
    const std::string dir = rapport::test::tempDirectory("envconfig");
    writeFile(dir + "/elsewhere.properties", "database.url = sqlite:named.db\n");
    std::string output;
    CPPUNIT_ASSERT_EQUAL_MESSAGE(
        output, 0,
        ServerProcess::runBare({"migrate"}, dir, output,
                               {{"RAPPORT_CONFIG", dir + "/elsewhere.properties"}}));
    CPPUNIT_ASSERT_MESSAGE(output, exists(dir + "/named.db"));
    CPPUNIT_ASSERT_MESSAGE(output, !exists(dir + "/data/rapport.db"));
  }

  void testEnvironmentBeatsTheDefaultFile() {
    const std::string dir = rapport::test::tempDirectory("envwins");
    Poco::File(dir + "/config").createDirectories();
    writeFile(dir + "/config/rapport.properties", "database.url = sqlite:from-config.db\n");
    std::string output;
    CPPUNIT_ASSERT_EQUAL_MESSAGE(
        output, 0,
        ServerProcess::runBare({"migrate"}, dir, output,
                               {{"RAPPORT_DATABASE_URL", "sqlite:from-env.db"}}));
    CPPUNIT_ASSERT_MESSAGE(output, exists(dir + "/from-env.db"));
    CPPUNIT_ASSERT_MESSAGE(output, !exists(dir + "/from-config.db"));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(DefaultsTest);
