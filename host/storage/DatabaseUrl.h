// database.url, parsed: which engine, how Poco connects to it, and how logs
// may name it (never with the password).
#pragma once

#include <string>

#include "rapport/db.h"

namespace rapport::host {

struct DatabaseUrl {
  Dialect dialect = Dialect::SQLite;
  // Poco's connector name and connection string: the SQLite file path, or
  // libpq's "host=... port=... user=... password=... dbname=..." form (Poco
  // does not take postgresql:// URIs).
  std::string connector;
  std::string connectionString;
  // "sqlite:<path>" or "postgresql://user:***@host:port/db".
  std::string description;
};

// Parses "sqlite:<path>" (relative to the working directory) or
// "postgresql://user[:pass]@host[:port]/db[?key=value&...]". Throws
// std::runtime_error("database.url: ...") without echoing the URL.
DatabaseUrl parseDatabaseUrl(const std::string& url);

// Creates the folders an SQLite file lives in.
void createParentDirectories(const std::string& sqlitePath);

}  // namespace rapport::host
