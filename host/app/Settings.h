// The operator's configuration (decisions §12): built-in defaults, then the
// configuration file (`--config FILE`, else config/rapport.properties when
// present in the working directory), then RAPPORT_<KEY> environment
// variables (upper case, dots as underscores: RAPPORT_SERVER_PORT overrides
// server.port). Later sources win.
//
// The file is Java-properties style: `key = value` lines, `#` comments.
//
// Environment names are matched against the keys Rapport knows (the table
// in Settings.cpp, the keys of the file, and the per-name keys of the
// `versions` and `deprecations` lists), so keys that contain underscores
// (auth.token_ttl) map unambiguously. A RAPPORT_ variable that matches no
// key is reported as a warning at start-up.
//
// Threading: immutable after load(); read from any thread.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "rapport/config.h"

namespace rapport::host {

struct SettingInfo {
  std::string key;
  std::string defaultValue;  // "" for unset
  std::string meaning;
};

class Settings : public rapport::Config {
 public:
  // Loads defaults, `file` (may be empty: no file) and the environment
  // `env` (NAME=VALUE strings; pass environ). Throws std::runtime_error
  // when the file cannot be read.
  static Settings load(const std::string& file, char** env);

  // Every key Rapport reads, with its default and meaning (for --help and the README).
  static const std::vector<SettingInfo>& known();

  bool has(const std::string& key) const override;
  std::string getString(const std::string& key, const std::string& fallback) const override;
  std::int64_t getInt(const std::string& key, std::int64_t fallback) const override;
  bool getBool(const std::string& key, bool fallback) const override;

  // Value of a key or "" (defaults included).
  std::string get(const std::string& key) const;
  void set(const std::string& key, const std::string& value) { values_[key] = value; }
  // Every key with its effective value; secrets masked (for --print-config).
  std::vector<std::pair<std::string, std::string>> effective() const;
  // RAPPORT_ variables that matched no key.
  const std::vector<std::string>& unknownEnvironment() const { return unknownEnv_; }
  const std::string& sourceFile() const { return file_; }

 private:
  std::map<std::string, std::string> values_;
  std::vector<std::string> unknownEnv_;
  std::string file_;
};

// "RAPPORT_" + upper-case key with dots (and dashes) as underscores.
std::string environmentName(const std::string& key);

}  // namespace rapport::host
