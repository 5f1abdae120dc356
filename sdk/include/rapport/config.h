// Read-only view of the operator's configuration (file plus RAPPORT_*
// environment overrides), and the configuration keys a module declares.
//
// A module reads only its own keys, named "<module>.<key>"
// ("webhooks.timeout"), and declares each of them in ModuleInfo::configuration
// (module.h) with its default and a one-line description: the default is
// written once, there. The host then
//   - refuses to load a module that declares a key outside "<module>." or
//     the same key twice (start-up stops with one line naming both);
//   - lists the keys under the module in `rapportd --help` and their
//     effective values in `rapportd --print-config` (secret ones masked);
//   - applies the key's RAPPORT_<KEY> environment variable;
//   - answers the key with its declared default when the operator left it
//     unset or empty.
// So for a declared key with a non-empty default has() is always true and
// the getters' `fallback` is never used: read such keys with the overloads
// without a fallback (getIntBetween(key, min, max), getBool(key), ...).
// The `fallback` forms are for keys declared with no default ("" = unset,
// such as "webhooks.ca_file").
//
// Threading: a Config is immutable once the module has it (from setup() to
// stop()); read it from any thread.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace rapport {

// One configuration key a module declares (ModuleInfo::configuration).
// Names use lowercase letters, digits, '_', '-' and '.', and start with the
// module's name and a dot; anything else is refused when the module loads.
struct ConfigKey {
  std::string name;          // "webhooks.timeout": always under "<module name>."
  std::string defaultValue;  // as an operator would write it ("10"); "" when the key has no default
  std::string description;   // one line, for --help ("seconds per delivery attempt")
  bool secret = false;       // masked by --print-config (like secrets.key)
};

class Config {
 public:
  virtual ~Config() = default;
  // True when the key has a non-empty value (the operator's, else a default).
  virtual bool has(const std::string& key) const = 0;
  virtual std::string getString(const std::string& key, const std::string& fallback) const = 0;
  // Throws std::invalid_argument naming the key when the value is not an integer.
  virtual std::int64_t getInt(const std::string& key, std::int64_t fallback) const = 0;
  // true/false, 1/0, yes/no, on/off; std::invalid_argument naming the key otherwise.
  virtual bool getBool(const std::string& key, bool fallback) const = 0;

  // getInt, refused unless within [min, max]: std::invalid_argument naming the
  // key, the range and the value ("webhooks.timeout must be between 1 and 300
  // (got 0)"), so a bad setting stops start-up with one clear line.
  std::int64_t getIntBetween(const std::string& key, std::int64_t fallback, std::int64_t min,
                             std::int64_t max) const {
    const std::int64_t value = getInt(key, fallback);
    if (value < min || value > max) {
      throw std::invalid_argument(key + " must be between " + std::to_string(min) + " and " +
                                  std::to_string(max) + " (got " + std::to_string(value) + ")");
    }
    return value;
  }

  // A comma-separated value as its items, each trimmed of spaces and tabs,
  // empty items dropped ("0, 60,,300" -> {"0", "60", "300"}); `fallback`
  // when the key is unset. (Written here, over getString, so every Config
  // has it.)
  std::vector<std::string> getList(const std::string& key,
                                   const std::vector<std::string>& fallback) const {
    if (!has(key)) return fallback;
    const std::string text = getString(key, "");
    std::vector<std::string> items;
    std::string::size_type start = 0;
    while (start <= text.size()) {
      std::string::size_type end = text.find(',', start);
      if (end == std::string::npos) end = text.size();
      const std::string::size_type first = text.find_first_not_of(" \t", start);
      if (first != std::string::npos && first < end) {
        const std::string::size_type last = text.find_last_not_of(" \t", end - 1);
        items.push_back(text.substr(first, last - first + 1));
      }
      start = end + 1;
    }
    return items;
  }

  // The same reads for a key that always has a value: one the module
  // declared with a default (the usual case), or one the operator must set.
  // A key with no value (a typo in the module's code, an undeclared key, or
  // a key declared without a default and left unset) throws
  // std::invalid_argument: "configuration key webhooks.timout is not set".
  std::string getString(const std::string& key) const {
    requireValue(key);
    return getString(key, "");
  }
  std::int64_t getInt(const std::string& key) const {
    requireValue(key);
    return getInt(key, 0);
  }
  bool getBool(const std::string& key) const {
    requireValue(key);
    return getBool(key, false);
  }
  std::int64_t getIntBetween(const std::string& key, std::int64_t min, std::int64_t max) const {
    requireValue(key);
    return getIntBetween(key, min, min, max);
  }
  std::vector<std::string> getList(const std::string& key) const {
    requireValue(key);
    return getList(key, {});
  }

 private:
  void requireValue(const std::string& key) const {
    if (!has(key)) throw std::invalid_argument("configuration key " + key + " is not set");
  }
};

}  // namespace rapport
