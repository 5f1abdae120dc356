// A redis-server of a test's own (.ci/lib/redis.sh), which the test may stop
// to see what the server does while redis is down; stopped (and its files
// removed) when it goes out of scope.
//
//   PrivateRedis redis;
//   ServerProcess server({{"ratelimit.store", "redis"}, {"redis.url", redis.url}});
//   redis.stop();
#pragma once

#include <fstream>
#include <stdexcept>
#include <string>

#include "support/TestCa.h"
#include "support/TestEnv.h"

namespace rapport::test {

// The URL a `.ci/lib/redis.sh start DIR` wrote.
inline std::string redisUrlIn(const std::string& stateDir) {
  std::ifstream file(stateDir + "/url");
  std::string url;
  if (!(file >> url)) throw std::runtime_error("no redis url in " + stateDir);
  return url;
}

struct PrivateRedis {
  PrivateRedis() : url(start()) {}
  ~PrivateRedis() {
    try {
      stop();
    } catch (const std::exception&) {
      // Nothing more to do: its files are in a temporary folder.
    }
  }
  PrivateRedis(const PrivateRedis&) = delete;
  PrivateRedis& operator=(const PrivateRedis&) = delete;

  std::string start() {
    runTool(script, {"start", state});
    return redisUrlIn(state);
  }
  void stop() { runTool(script, {"stop", state}); }

  // Declared (so initialised) before url, which start() makes.
  const std::string script = sourceDir() + "/.ci/lib/redis.sh";
  const std::string state = tempDirectory("redis");
  const std::string url;
};

}  // namespace rapport::test
