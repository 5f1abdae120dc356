// Structured logging into the host's log (one line per entry, key=value).
// Never log secrets, tokens, passwords, reset or recovery codes.
#pragma once

#include <string>

namespace rapport {

class Logger {
 public:
  virtual ~Logger() = default;
  virtual void debug(const std::string& message) = 0;
  virtual void info(const std::string& message) = 0;
  virtual void warn(const std::string& message) = 0;
  virtual void error(const std::string& message) = 0;
};

}  // namespace rapport
