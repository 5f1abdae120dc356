// Read-only view of the operator's configuration (file plus RAPPORT_*
// environment overrides). Modules read their own keys, by convention under
// "<module>." ("webhooks.timeout").
#pragma once

#include <cstdint>
#include <string>

namespace rapport {

class Config {
 public:
  virtual ~Config() = default;
  virtual bool has(const std::string& key) const = 0;
  virtual std::string getString(const std::string& key, const std::string& fallback) const = 0;
  // Throws std::invalid_argument naming the key when the value is not an integer.
  virtual std::int64_t getInt(const std::string& key, std::int64_t fallback) const = 0;
  virtual bool getBool(const std::string& key, bool fallback) const = 0;
};

}  // namespace rapport
