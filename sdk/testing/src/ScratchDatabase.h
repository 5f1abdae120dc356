// The database of one Harness, made for it and gone with it.
//   - SQLite: <folder>/rapport.db (removed with the folder).
//   - PostgreSQL: CREATE DATABASE rapport_h_<random hex> on the server a
//     postgresql:// URL names (the user needs CREATEDB), and
//     DROP DATABASE ... WITH (FORCE) (PostgreSQL 13 and later) on
//     destruction, after the host has closed its sessions.
#pragma once

#include <filesystem>
#include <string>

namespace rapport::testing {

class ScratchDatabase {
 public:
  // `serverUrl` empty: SQLite in `folder`. Throws std::runtime_error naming
  // the server (never its password) when the database cannot be created.
  ScratchDatabase(const std::string& serverUrl, const std::filesystem::path& folder);
  ~ScratchDatabase();
  ScratchDatabase(const ScratchDatabase&) = delete;
  ScratchDatabase& operator=(const ScratchDatabase&) = delete;

  // The database.url of the new database.
  const std::string& url() const { return url_; }

 private:
  std::string serverUrl_;  // PostgreSQL only
  std::string name_;       // PostgreSQL only
  std::string url_;
};

}  // namespace rapport::testing
