// Shared pieces of the mailer tests: the host log captured into a file, a
// map-backed Config, and a wait on a real condition (with a deadline).
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "rapport/config.h"
#include "support/TestEnv.h"

namespace rapport::test::mail {

// Sends the host log (standard error) to a file while it lives.
class LogCapture {
 public:
  LogCapture() {
    path_ = rapport::test::tempDirectory("mail-log") + "/log";
    std::fflush(stderr);
    saved_ = ::dup(STDERR_FILENO);
    const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (saved_ < 0 || fd < 0) throw std::runtime_error("cannot capture standard error");
    ::dup2(fd, STDERR_FILENO);
    ::close(fd);
  }
  ~LogCapture() {
    std::fflush(stderr);
    ::dup2(saved_, STDERR_FILENO);
    ::close(saved_);
    // Shown in the test output, for a failure's context.
    const std::string text = contents();
    if (!text.empty()) {
      const std::string framed = "--- captured log ---\n" + text + "--- end of log ---\n";
      (void)!::write(STDERR_FILENO, framed.data(), framed.size());
    }
  }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  std::string contents() const {
    std::ifstream in(path_);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  bool contains(const std::string& text) const {
    return contents().find(text) != std::string::npos;
  }
  // Lines that contain every one of `parts`.
  int countLines(std::initializer_list<std::string> parts) const {
    std::istringstream in(contents());
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      bool all = true;
      for (const auto& p : parts) all = all && line.find(p) != std::string::npos;
      if (all) ++n;
    }
    return n;
  }

 private:
  std::string path_;
  int saved_ = -1;
};

class MapConfig : public rapport::Config {
 public:
  MapConfig() = default;
  MapConfig(std::initializer_list<std::pair<const std::string, std::string>> v) : values(v) {}
  std::map<std::string, std::string> values;
  bool has(const std::string& key) const override { return values.count(key) > 0; }
  std::string getString(const std::string& key, const std::string& fallback) const override {
    auto it = values.find(key);
    return it == values.end() ? fallback : it->second;
  }
  std::int64_t getInt(const std::string& key, std::int64_t fallback) const override {
    auto it = values.find(key);
    if (it == values.end()) return fallback;
    try {
      std::size_t used = 0;
      const long long v = std::stoll(it->second, &used);
      if (used == it->second.size()) return v;
    } catch (const std::exception&) {
    }
    throw std::invalid_argument(key + " must be an integer");
  }
  bool getBool(const std::string& key, bool fallback) const override {
    auto it = values.find(key);
    return it == values.end() ? fallback : it->second == "true";
  }
};

// Polls `condition` until it holds; throws `what` after `limit`.
inline void waitFor(const std::function<bool()>& condition, const std::string& what,
                    std::chrono::milliseconds limit = std::chrono::seconds(15)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error("timed out waiting for " + what);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace rapport::test::mail
