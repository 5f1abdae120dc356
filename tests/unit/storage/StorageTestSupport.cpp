#include "StorageTestSupport.h"

#include "support/TestEnv.h"

namespace rapport::test::storage {

rapport::host::StorageOptions freshOptions() {
  rapport::host::StorageOptions options;
  options.url = rapport::test::freshDatabaseUrl("storage");
  options.poolSize = 4;
  options.acquireTimeoutMs = 5000;
  options.sqliteBusyTimeoutMs = 5000;
  return options;
}

std::unique_ptr<rapport::host::SqlDatabase> openDatabase(
    const rapport::host::StorageOptions& options) {
  return rapport::host::SqlDatabase::open(options);
}

rapport::host::SessionPool& poolOf(rapport::host::SqlDatabase& db) {
  return dynamic_cast<rapport::host::SqlDatabaseImpl&>(db).pool();
}

bool onPostgres() {
  return rapport::test::onPostgres();
}

std::string bySql(const std::string& sqlite, const std::string& postgresql) {
  return onPostgres() ? postgresql : sqlite;
}

}  // namespace rapport::test::storage
