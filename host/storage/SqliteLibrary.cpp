#include "storage/SqliteLibrary.h"

#include <sqlite3.h>

#include <mutex>

namespace rapport::host {

void configureSqliteLibrary() {
  static std::once_flag once;
  std::call_once(once, [] {
    // SQLITE_MISUSE when the library is initialised already: keep its settings.
    static_cast<void>(sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0));
  });
}

}  // namespace rapport::host
