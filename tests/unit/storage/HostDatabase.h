// A fresh database of the engine under test with the host's own migrations
// applied, for tests of host concerns that keep tables (the event log,
// idempotency keys). Include it only in a test whose CMake target embeds the
// host's migrations:
//   rapport_embed_migrations(<target> host ${PROJECT_SOURCE_DIR}/migrations)
#pragma once

#include <memory>

#include "host_migrations.gen.h"
#include "storage/Migrator.h"
#include "storage/StorageTestSupport.h"

namespace rapport::test::storage {

inline std::unique_ptr<rapport::host::SqlDatabase> openWithHostMigrations() {
  auto db = openDatabase();
  rapport::host::Migrator(*db).apply({{"host", rapport_generated::host::migrations()}});
  return db;
}

}  // namespace rapport::test::storage
