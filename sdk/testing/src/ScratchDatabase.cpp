#include "ScratchDatabase.h"

#include <libpq-fe.h>

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "log/Log.h"
#include "rapport/ids.h"
#include "storage/DatabaseUrl.h"

namespace rapport::testing {
namespace {

using Connection = std::unique_ptr<PGconn, decltype(&PQfinish)>;

// One statement on the server's maintenance database (the one the URL names):
// CREATE and DROP DATABASE cannot run inside a transaction, so libpq's
// simple protocol rather than the host's pool.
void runOnServer(const std::string& serverUrl, const std::string& sql) {
  const host::DatabaseUrl url = host::parseDatabaseUrl(serverUrl);
  Connection connection(PQconnectdb(url.connectionString.c_str()), &PQfinish);
  if (PQstatus(connection.get()) != CONNECTION_OK) {
    throw std::runtime_error("harness: cannot connect to " + url.description + ": " +
                             PQerrorMessage(connection.get()));
  }
  std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(connection.get(), sql.c_str()),
                                                       &PQclear);
  if (PQresultStatus(result.get()) != PGRES_COMMAND_OK) {
    throw std::runtime_error("harness: " + sql + " on " + url.description + ": " +
                             PQerrorMessage(connection.get()));
  }
}

// serverUrl with its database path replaced by `name` (the query is kept).
std::string withDatabase(const std::string& serverUrl, const std::string& name) {
  const std::size_t scheme = serverUrl.find("://");
  const std::size_t authorityStart = scheme == std::string::npos ? 0 : scheme + 3;
  const std::size_t query = serverUrl.find('?', authorityStart);
  const std::size_t pathStart = serverUrl.find('/', authorityStart);
  const std::size_t authorityEnd = std::min(pathStart, query);
  std::string out = serverUrl.substr(0, authorityEnd) + "/" + name;
  if (query != std::string::npos) out += serverUrl.substr(query);
  return out;
}

}  // namespace

ScratchDatabase::ScratchDatabase(const std::string& serverUrl,
                                 const std::filesystem::path& folder) {
  if (serverUrl.empty()) {
    url_ = "sqlite:" + (folder / "rapport.db").string();
    return;
  }
  if (host::parseDatabaseUrl(serverUrl).dialect != Dialect::PostgreSQL) {
    throw std::runtime_error("harness: the database server must be a postgresql:// URL");
  }
  // Lowercase hex: a PostgreSQL name that needs no quoting.
  const std::string name =
      "rapport_h_" + rapport::sha256Hex(rapport::randomToken(16)).substr(0, 16);
  runOnServer(serverUrl, "CREATE DATABASE " + name);
  serverUrl_ = serverUrl;
  name_ = name;
  url_ = withDatabase(serverUrl, name);
}

ScratchDatabase::~ScratchDatabase() {
  if (name_.empty()) return;
  try {
    runOnServer(serverUrl_, "DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
  } catch (const std::exception& e) {
    host::log::error("harness: test database left behind", {{"error", e.what()}});
  }
}

}  // namespace rapport::testing
