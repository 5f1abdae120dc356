// The host's structured log: one line per entry on standard error,
//   ts=2026-11-21T06:20:55.123456Z level=info req=3f9c... msg="request" status=200
// Values with spaces or quotes are quoted. Thread-safe; lines never interleave.
// Never pass secrets, tokens, passwords or codes as fields.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "rapport/log.h"

namespace rapport::host::log {

enum class Level { Debug = 0, Info = 1, Warn = 2, Error = 3 };

using Fields = std::initializer_list<std::pair<std::string_view, std::string_view>>;

void setLevel(Level level);
// Parses "debug", "info", "warn", "error"; unknown names keep "info".
Level parseLevel(std::string_view name);
bool enabled(Level level);
void write(Level level, std::string_view message, Fields fields = {});

inline void debug(std::string_view m, Fields f = {}) {
  write(Level::Debug, m, f);
}
inline void info(std::string_view m, Fields f = {}) {
  write(Level::Info, m, f);
}
inline void warn(std::string_view m, Fields f = {}) {
  write(Level::Warn, m, f);
}
inline void error(std::string_view m, Fields f = {}) {
  write(Level::Error, m, f);
}

// rapport::Logger for a module: every line carries module=<name>.
class ModuleLogger : public rapport::Logger {
 public:
  explicit ModuleLogger(std::string module) : module_(std::move(module)) {}
  void debug(const std::string& m) override { write(Level::Debug, m, {{"module", module_}}); }
  void info(const std::string& m) override { write(Level::Info, m, {{"module", module_}}); }
  void warn(const std::string& m) override { write(Level::Warn, m, {{"module", module_}}); }
  void error(const std::string& m) override { write(Level::Error, m, {{"module", module_}}); }

 private:
  std::string module_;
};

}  // namespace rapport::host::log
