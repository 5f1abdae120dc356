// redis.url, parsed: where the shared rate-limit store lives and how logs may
// name it (never with the password).
#pragma once

#include <string>

namespace rapport::host {

struct RedisUrl {
  std::string host;
  int port = 6379;
  std::string username;  // empty: AUTH with the password alone (or no AUTH)
  std::string password;  // empty: no AUTH
  int database = 0;      // SELECT <n> when not 0
  // "redis://host:port/db", with "***" in place of a password.
  std::string description;
};

// Parses "redis://[[user]:password@]host[:port][/db]" (an IPv6 host in
// brackets; port 6379 and database 0 when absent). Throws
// std::invalid_argument("redis.url ...") without echoing a password.
RedisUrl parseRedisUrl(const std::string& url);

}  // namespace rapport::host
