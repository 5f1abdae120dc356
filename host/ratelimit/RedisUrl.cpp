#include "ratelimit/RedisUrl.h"

#include <charconv>
#include <optional>
#include <stdexcept>

namespace rapport::host {
namespace {

constexpr std::string_view kScheme = "redis://";

[[noreturn]] void refuse(const std::string& why) {
  throw std::invalid_argument("redis.url must be redis://[:password@]host:port[/db]: " + why);
}

// A whole decimal number in [least, most], or refuse(what).
int number(std::string_view text, int least, int most, const std::string& what) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || value < least ||
      value > most) {
    refuse(what + " '" + std::string(text) + "' is not a number from " + std::to_string(least) +
           " to " + std::to_string(most));
  }
  return value;
}

}  // namespace

RedisUrl parseRedisUrl(const std::string& url) {
  if (url.compare(0, kScheme.size(), kScheme) != 0) refuse("the scheme is not redis://");
  std::string_view rest = std::string_view(url).substr(kScheme.size());
  RedisUrl out;

  // The credentials end at the last '@': a password may contain one.
  bool hasPassword = false;
  if (const auto at = rest.rfind('@'); at != std::string_view::npos) {
    const std::string_view credentials = rest.substr(0, at);
    const auto colon = credentials.find(':');
    if (colon == std::string_view::npos) refuse("the credentials need a ':' before the password");
    out.username = std::string(credentials.substr(0, colon));
    out.password = std::string(credentials.substr(colon + 1));
    hasPassword = true;
    rest = rest.substr(at + 1);
  }

  std::string_view authority = rest;
  if (const auto slash = rest.find('/'); slash != std::string_view::npos) {
    authority = rest.substr(0, slash);
    const std::string_view db = rest.substr(slash + 1);
    if (!db.empty()) out.database = number(db, 0, 65535, "the database");
  }

  std::optional<std::string_view> port;  // after a ':'
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) refuse("an IPv6 host lacks its ']'");
    out.host = std::string(authority.substr(1, close - 1));
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty() && after.front() != ':') refuse("unexpected text after the host");
    if (!after.empty()) port = after.substr(1);
  } else {
    const auto colon = authority.find(':');
    out.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (out.host.empty()) refuse("the host is missing");
  if (port) out.port = number(*port, 1, 65535, "the port");

  const bool bracketed = out.host.find(':') != std::string::npos;
  out.description = std::string(kScheme) + (hasPassword ? out.username + ":***@" : "") +
                    (bracketed ? "[" + out.host + "]" : out.host) + ":" + std::to_string(out.port) +
                    "/" + std::to_string(out.database);
  return out;
}

}  // namespace rapport::host
