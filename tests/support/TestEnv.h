// Where tests find their databases and binaries.
//
// RAPPORT_TEST_ENGINE (set by ctest per registered test) picks "sqlite"
// (default) or "postgresql". freshDatabaseUrl() returns a database.url of an
// empty database that belongs to this test alone:
//   sqlite:     a new file under a temporary folder;
//   postgresql: a new database on the throw-away server of .ci/lib/pg.sh,
//               found in RAPPORT_TEST_PG_URL or the fixture's url file.
#pragma once

#include <string>

namespace rapport::test {

// "sqlite" or "postgresql".
std::string engine();
bool onPostgres();
// A database.url for a new, empty database (see above).
std::string freshDatabaseUrl(const std::string& label = "t");
// Drops every PostgreSQL database freshDatabaseUrl() made in this process
// (WITH (FORCE): a server a test left running loses its sessions). TestMain
// calls it after the suites ran, so a run leaves the test server as it found
// it and pg.sh's stop has less to remove. Never throws; a failure is printed.
void dropFreshDatabases();
// The admin URL of the test PostgreSQL (throws when none is running).
std::string postgresAdminUrl();
// Converts postgresql://user[:pass]@host:port/db into Poco's "key=value" form.
std::string pocoPostgresConnectionString(const std::string& url);
// A new empty temporary directory, removed at exit.
std::string tempDirectory(const std::string& label = "t");
// Paths of the build tree.
std::string buildDir();
std::string sourceDir();

}  // namespace rapport::test
