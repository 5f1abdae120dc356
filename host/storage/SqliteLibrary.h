// Process-wide settings of the SQLite library, applied once before the first
// SQLite connection opens (sqlite3_config only works before the library
// initialises, which opening a connection does).
#pragma once

namespace rapport::host {

// Turns SQLite's memory statistics off (SQLITE_CONFIG_MEMSTATUS): with them
// on, every allocation SQLite makes takes one mutex shared by all
// connections, which the request workers then queue on. Nothing here reads
// those statistics. Safe to call from several threads; only the first call
// acts, and a library some other code initialised already is left as it is.
void configureSqliteLibrary();

}  // namespace rapport::host
