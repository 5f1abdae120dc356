// database.url parsing and SqlDatabase::open's refusals.
#include <cppunit/extensions/HelperMacros.h>

#include <filesystem>

#include "storage/DatabaseUrl.h"
#include "storage/SqlDatabase.h"
#include "support/TestEnv.h"

using rapport::host::DatabaseUrl;
using rapport::host::parseDatabaseUrl;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string openError(const std::string& url) {
  rapport::host::StorageOptions options;
  options.url = url;
  try {
    rapport::host::SqlDatabase::open(options);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(opened)";
}

}  // namespace

class DatabaseUrlTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(DatabaseUrlTest);
  CPPUNIT_TEST(parsesSqlitePaths);
  CPPUNIT_TEST(convertsPostgresUrlsToKeyValueForm);
  CPPUNIT_TEST(masksThePasswordInDescriptions);
  CPPUNIT_TEST(refusesUnknownSchemes);
  CPPUNIT_TEST(createsSqliteParentDirectories);
  CPPUNIT_TEST(unreachableServerFailsWithoutThePassword);
  CPPUNIT_TEST_SUITE_END();

 public:
  void parsesSqlitePaths() {
    const DatabaseUrl url = parseDatabaseUrl("sqlite:data/rapport.db");
    CPPUNIT_ASSERT(url.dialect == rapport::Dialect::SQLite);
    CPPUNIT_ASSERT_EQUAL(std::string("data/rapport.db"), url.connectionString);
    CPPUNIT_ASSERT_EQUAL(std::string("sqlite:data/rapport.db"), url.description);
    CPPUNIT_ASSERT_EQUAL(std::string("/var/lib/r.db"),
                         parseDatabaseUrl("sqlite:///var/lib/r.db").connectionString);
    CPPUNIT_ASSERT_THROW(parseDatabaseUrl("sqlite:"), std::runtime_error);
    CPPUNIT_ASSERT_THROW(parseDatabaseUrl("sqlite::memory:"), std::runtime_error);
  }

  void convertsPostgresUrlsToKeyValueForm() {
    const DatabaseUrl url =
        parseDatabaseUrl("postgresql://app:s%40cret@db.example:6543/crm?sslmode=require");
    CPPUNIT_ASSERT(url.dialect == rapport::Dialect::PostgreSQL);
    CPPUNIT_ASSERT_EQUAL(std::string("postgresql"), url.connector);
    CPPUNIT_ASSERT_EQUAL(std::string("host='db.example' port=6543 user='app' password='s@cret' "
                                     "dbname='crm' sslmode='require' connect_timeout=10 "
                                     "application_name=rapport"),
                         url.connectionString);
    const DatabaseUrl plain = parseDatabaseUrl("postgres://app@localhost/crm");
    CPPUNIT_ASSERT_EQUAL(
        std::string("host='localhost' port=5432 user='app' dbname='crm' connect_timeout=10 "
                    "application_name=rapport"),
        plain.connectionString);
    // Quotes and backslashes in values are escaped for libpq.
    CPPUNIT_ASSERT(contains(parseDatabaseUrl("postgresql://u:a'b%5Cc@h/d").connectionString,
                            "password='a\\'b\\\\c'"));
  }

  void masksThePasswordInDescriptions() {
    CPPUNIT_ASSERT_EQUAL(
        std::string("postgresql://app:***@db.example:6543/crm"),
        parseDatabaseUrl("postgresql://app:secret@db.example:6543/crm").description);
    CPPUNIT_ASSERT_EQUAL(std::string("postgresql://app@localhost:5432/crm"),
                         parseDatabaseUrl("postgresql://app@localhost/crm").description);
  }

  void refusesUnknownSchemes() {
    const std::string message = openError("mysql://root:hunter2@localhost/crm");
    CPPUNIT_ASSERT(contains(message, "database.url: unsupported scheme \"mysql\""));
    CPPUNIT_ASSERT(!contains(message, "hunter2"));
  }

  void createsSqliteParentDirectories() {
    const std::string dir = rapport::test::tempDirectory("storage-url");
    rapport::host::StorageOptions options;
    options.url = "sqlite:" + dir + "/nested/deeper/r.db";
    auto db = rapport::host::SqlDatabase::open(options);
    CPPUNIT_ASSERT(std::filesystem::exists(dir + "/nested/deeper/r.db"));
    CPPUNIT_ASSERT_EQUAL(options.url, db->describe());
    CPPUNIT_ASSERT(db->ping());
  }

  void unreachableServerFailsWithoutThePassword() {
    // Port 1 on loopback: refused at once.
    const std::string message = openError("postgresql://app:hunter2@127.0.0.1:1/crm");
    CPPUNIT_ASSERT(contains(message, "postgresql://app:***@127.0.0.1:1/crm"));
    CPPUNIT_ASSERT(!contains(message, "hunter2"));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(DatabaseUrlTest);
