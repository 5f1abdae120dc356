// SqlDatabase::open: the factory behind database.url.
#include "storage/SqlDatabase.h"

#include <Poco/Data/PostgreSQL/Connector.h>
#include <Poco/Data/SQLite/Connector.h>

#include <mutex>
#include <stdexcept>

#include "storage/DatabaseUrl.h"
#include "storage/SqlDatabaseImpl.h"

namespace rapport::host {
namespace {

void registerConnectors() {
  static std::once_flag once;
  std::call_once(once, [] {
    Poco::Data::SQLite::Connector::registerConnector();
    Poco::Data::PostgreSQL::Connector::registerConnector();
  });
}

void validate(const StorageOptions& options) {
  if (options.poolSize < 1) throw std::runtime_error("database.pool_size must be at least 1");
  if (options.acquireTimeoutMs < 0 || options.sqliteBusyTimeoutMs < 0 ||
      options.lockTimeoutMs < 0) {
    throw std::runtime_error(
        "database.acquire_timeout_ms, database.sqlite_busy_timeout_ms and "
        "database.lock_timeout_ms must not be negative");
  }
  if (options.queryTimeoutMs < 0) {
    throw std::runtime_error("database.query_timeout_ms must not be negative");
  }
}

}  // namespace

std::unique_ptr<SqlDatabase> SqlDatabase::open(const StorageOptions& options) {
  validate(options);
  registerConnectors();
  DatabaseUrl url = parseDatabaseUrl(options.url);
  if (url.dialect == Dialect::SQLite) createParentDirectories(url.connectionString);
  try {
    return std::make_unique<SqlDatabaseImpl>(std::move(url), options);
  } catch (const DbError& error) {
    // Already names the database (never its password) and the driver's reason.
    throw std::runtime_error(std::string("database: ") + error.what());
  }
}

}  // namespace rapport::host
