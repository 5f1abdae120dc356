// Read-only view of the operator's configuration (file plus RAPPORT_*
// environment overrides). Modules read their own keys, by convention under
// "<module>." ("webhooks.timeout").
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace rapport {

class Config {
 public:
  virtual ~Config() = default;
  virtual bool has(const std::string& key) const = 0;
  virtual std::string getString(const std::string& key, const std::string& fallback) const = 0;
  // Throws std::invalid_argument naming the key when the value is not an integer.
  virtual std::int64_t getInt(const std::string& key, std::int64_t fallback) const = 0;
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
};

}  // namespace rapport
