// The operator's configuration (decisions §12): built-in defaults, then the
// configuration file (`--config FILE`, else config/rapport.properties when
// present in the working directory), then RAPPORT_<KEY> environment
// variables (upper case, dots as underscores: RAPPORT_SERVER_PORT overrides
// server.port). Later sources win.
//
// The file is Java-properties style: `key = value` lines, `#` comments.
//
// Environment names are matched against the keys Rapport knows (the table
// in Settings.cpp, the keys of the file, the per-name keys of the
// `versions` and `deprecations` lists, and the keys the enabled modules
// declare), so keys that contain underscores (auth.token_ttl) map
// unambiguously.
//
// Unknown keys: a RAPPORT_ variable that matches no key, and a key of the
// file that neither the host nor an enabled module reads (a typo, or the key
// of a module that is not enabled), are reported as warnings at start-up and
// otherwise ignored; --print-config lists them apart.
//
// Module keys: the host does not know them until the modules are loaded;
// declare() adds each enabled module's keys (ModuleInfo::configuration)
// with their defaults and environment overrides (ModuleConfiguration.h).
//
// Threading: immutable after load() and declare(); read from any thread.
#pragma once

#include <map>
#include <set>
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

  // Every key the host reads, with its default and meaning (for --help and
  // the README). Modules' keys are not here: each module declares its own.
  static const std::vector<SettingInfo>& known();

  bool has(const std::string& key) const override;
  std::string getString(const std::string& key, const std::string& fallback) const override;
  std::int64_t getInt(const std::string& key, std::int64_t fallback) const override;
  bool getBool(const std::string& key, bool fallback) const override;
  // The forms without a fallback (config.h), hidden by the overrides above.
  using rapport::Config::getBool;
  using rapport::Config::getInt;
  using rapport::Config::getString;

  // Adds keys an enabled module declared (checked first: see
  // checkDeclaredKeys in ModuleConfiguration.h). A key left unset or empty
  // gets its default; its RAPPORT_<KEY> variable applies (and is no longer
  // unknown); a secret one is masked by effective().
  void declare(const std::vector<rapport::ConfigKey>& keys);
  // True for a key of the host's table (known()) or a per-name key of the
  // `versions` and `deprecations` lists.
  bool isHostKey(const std::string& key) const;
  // True for a key declare() added.
  bool isDeclared(const std::string& key) const { return declared_.count(key) > 0; }
  // Keys with a value (from the file or set()) that neither the host nor a
  // declared module key names, sorted.
  std::vector<std::string> unknownKeys() const;

  // Value of a key or "" (defaults included).
  std::string get(const std::string& key) const;
  void set(const std::string& key, const std::string& value) { values_[key] = value; }
  // Every key with its effective value, sorted; secrets masked (for --print-config).
  std::vector<std::pair<std::string, std::string>> effective() const;
  // RAPPORT_ variables that matched no key.
  const std::vector<std::string>& unknownEnvironment() const { return unknownEnv_; }
  const std::string& sourceFile() const { return file_; }

 private:
  std::map<std::string, std::string> values_;
  std::vector<std::string> unknownEnv_;
  std::string file_;
  std::map<std::string, std::string> environment_;  // the RAPPORT_* variables, for declare()
  std::set<std::string> declared_;
  std::set<std::string> secrets_;  // declared secret: masked whatever the name
};

// "RAPPORT_" + upper-case key with dots (and dashes) as underscores.
std::string environmentName(const std::string& key);

}  // namespace rapport::host
