// The host's structured log: one line per entry on standard error, in one
// of two formats (log.format):
//   text: ts=2026-11-21T06:20:55.123456Z level=info msg=request req=3f9c... status=200
//         (values with spaces, quotes, '=' or control bytes are quoted)
//   json: {"ts":"2026-11-21T06:20:55.123456Z","level":"info","msg":"request","req":"3f9c...",
//          "status":"200"}
//         (one object per line, every value a string, written by rapport::Json)
// Thread-safe; lines never interleave. Never pass secrets, tokens,
// passwords or codes as fields.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "rapport/log.h"

namespace rapport::host::log {

enum class Level { Debug = 0, Info = 1, Warn = 2, Error = 3 };

using Fields = std::initializer_list<std::pair<std::string_view, std::string_view>>;

enum class Format { Text, Json };

void setLevel(Level level);
void setFormat(Format format);
// Parses "text" or "json"; throws std::invalid_argument naming log.format
// for anything else.
Format parseFormat(std::string_view name);
// Parses "debug", "info", "warn", "error"; unknown names keep "info".
Level parseLevel(std::string_view name);
bool enabled(Level level);
void write(Level level, std::string_view message, Fields fields = {});
// The line write() prints (with its newline), for the tests.
std::string formatLine(Format format, std::string_view timestamp, Level level,
                       std::string_view message, Fields fields);

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
