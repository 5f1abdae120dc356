// The redis-server of the tests (ctest fixture "redis", .ci/lib/redis.sh):
// its URL, a raw client for looking at what the stores wrote, and a port
// nothing listens on (redis down). A server of a test's own, which it may
// stop: PrivateRedis.h.
#pragma once

#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Redis/Array.h>
#include <Poco/Redis/Client.h>

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>

#include "ratelimit/RedisPool.h"
#include "ratelimit/RedisUrl.h"

namespace rapport::test {

// RAPPORT_TEST_REDIS_URL, else the fixture's url file; throws when neither.
inline std::string redisUrl() {
  if (const char* url = std::getenv("RAPPORT_TEST_REDIS_URL"); url && *url) return url;
  std::ifstream file(RAPPORT_TEST_REDIS_URL_FILE);
  std::string url;
  if (!(file >> url)) {
    throw std::runtime_error(
        "no test redis: run the ctest fixture (redis.start) or set RAPPORT_TEST_REDIS_URL");
  }
  return url;
}

// A pool on the test redis.
inline rapport::host::RedisPool& testRedisPool() {
  static rapport::host::RedisPool pool(rapport::host::parseRedisUrl(redisUrl()),
                                       rapport::host::RedisPool::Options{});
  return pool;
}

// A loopback port that was free a moment ago: connections are refused.
inline int closedPort() {
  Poco::Net::ServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", 0));
  const int port = socket.address().port();
  socket.close();
  return port;
}

// One command on a connection of its own (for PTTL, EXISTS, DEL...).
template <typename Reply>
Reply redisCommand(std::initializer_list<std::string> words) {
  const auto url = rapport::host::parseRedisUrl(redisUrl());
  Poco::Redis::Client client(url.host, url.port);
  Poco::Redis::Array command;
  for (const auto& word : words) command << word;
  return client.execute<Reply>(command);
}

}  // namespace rapport::test
