#include "support/TestEnv.h"

#include <Poco/Data/PostgreSQL/Connector.h>
#include <Poco/Data/Session.h>
#include <Poco/File.h>
#include <Poco/FileStream.h>
#include <Poco/Path.h>
#include <Poco/TemporaryFile.h>
#include <Poco/URI.h>

#include <cstdlib>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "rapport/ids.h"

namespace rapport::test {

std::string engine() {
  const char* e = std::getenv("RAPPORT_TEST_ENGINE");
  return (e && *e) ? std::string(e) : std::string("sqlite");
}

bool onPostgres() {
  return engine() == "postgresql";
}

std::string buildDir() {
  return RAPPORT_BUILD_DIR;
}
std::string sourceDir() {
  return RAPPORT_SOURCE_DIR;
}

std::string tempDirectory(const std::string& label) {
  Poco::Path path(Poco::Path::temp());
  path.pushDirectory("rapport-" + label + "-" + rapport::randomToken(6));
  Poco::File dir(path);
  dir.createDirectories();
  Poco::TemporaryFile::registerForDeletion(path.toString());
  return path.toString();
}

std::string postgresAdminUrl() {
  if (const char* url = std::getenv("RAPPORT_TEST_PG_URL"); url && *url) return url;
  Poco::File file(RAPPORT_TEST_PG_URL_FILE);
  if (!file.exists()) {
    throw std::runtime_error(
        "no test PostgreSQL: set RAPPORT_TEST_PG_URL, or run the tests through ctest "
        "(fixture postgres.start runs .ci/lib/pg.sh)");
  }
  Poco::FileInputStream in(RAPPORT_TEST_PG_URL_FILE);
  std::string url;
  std::getline(in, url);
  return url;
}

std::string pocoPostgresConnectionString(const std::string& url) {
  Poco::URI uri(url);
  std::string user = uri.getUserInfo(), password;
  if (auto colon = user.find(':'); colon != std::string::npos) {
    password = user.substr(colon + 1);
    user = user.substr(0, colon);
  }
  std::string db = uri.getPath().empty() ? "postgres" : uri.getPath().substr(1);
  std::string out = "host=" + uri.getHost() + " port=" + std::to_string(uri.getPort()) +
                    " user=" + user + " dbname=" + db;
  if (!password.empty()) out += " password=" + password;
  return out;
}

namespace {

// The databases freshDatabaseUrl() created, for dropFreshDatabases().
std::mutex createdMutex;
std::vector<std::string> createdDatabases;

}  // namespace

std::string freshDatabaseUrl(const std::string& label) {
  if (!onPostgres()) {
    return "sqlite:" + tempDirectory(label) + "/rapport.db";
  }
  static std::once_flag registered;
  std::call_once(registered, [] { Poco::Data::PostgreSQL::Connector::registerConnector(); });
  std::string admin = postgresAdminUrl();
  std::string name = "rapport_" + label + "_" + rapport::newId("").substr(0, 16);
  Poco::Data::Session session("postgresql", pocoPostgresConnectionString(admin));
  session << "CREATE DATABASE " + name, Poco::Data::Keywords::now;
  {
    const std::lock_guard<std::mutex> lock(createdMutex);
    createdDatabases.push_back(name);
  }
  Poco::URI uri(admin);
  uri.setPath("/" + name);
  return uri.toString();
}

void dropFreshDatabases() {
  std::vector<std::string> names;
  {
    const std::lock_guard<std::mutex> lock(createdMutex);
    names.swap(createdDatabases);
  }
  if (names.empty()) return;
  try {
    Poco::Data::Session session("postgresql", pocoPostgresConnectionString(postgresAdminUrl()));
    for (const std::string& name : names) {
      session << "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)", Poco::Data::Keywords::now;
    }
  } catch (const std::exception& e) {
    std::cerr << "could not drop the test databases: " << e.what() << "\n";
  }
}

}  // namespace rapport::test
