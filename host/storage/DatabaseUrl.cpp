#include "storage/DatabaseUrl.h"

#include <Poco/Exception.h>
#include <Poco/URI.h>

#include <filesystem>
#include <stdexcept>
#include <utility>
#include <vector>

namespace rapport::host {
namespace {

constexpr int kDefaultPostgresPort = 5432;

[[noreturn]] void invalid(const std::string& why) {
  throw std::runtime_error("database.url: " + why);
}

DatabaseUrl sqliteUrl(std::string path) {
  // Accept the URL-looking spelling sqlite:///abs/path.db as well.
  if (path.starts_with("//")) path.erase(0, 2);
  if (path.empty()) invalid("sqlite: needs a file path (sqlite:data/rapport.db)");
  if (path == ":memory:") {
    invalid("sqlite::memory: is not supported (every pooled session would see its own database)");
  }
  return DatabaseUrl{Dialect::SQLite, "sqlite", path, "sqlite:" + path};
}

// libpq values are quoted so spaces, quotes and backslashes survive.
std::string conninfoValue(const std::string& value) {
  std::string out = "'";
  for (const char c : value) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

bool isParameterName(const std::string& key) {
  if (key.empty()) return false;
  for (const char c : key) {
    if (!((c >= 'a' && c <= 'z') || c == '_')) return false;
  }
  return true;
}

struct PostgresParts {
  std::string user, password, host, database;
  int port = kDefaultPostgresPort;
  std::vector<std::pair<std::string, std::string>> options;
};

PostgresParts postgresParts(const std::string& url) {
  PostgresParts parts;
  Poco::URI uri;
  try {
    uri = Poco::URI(url);
    parts.options = uri.getQueryParameters();
  } catch (const Poco::Exception&) {
    invalid("not a valid postgresql:// URL");  // the URL may hold a password: not echoed
  }
  // Poco leaves the user info percent-encoded: split first, then decode.
  const std::string userInfo = uri.getUserInfo();
  const auto colon = userInfo.find(':');
  Poco::URI::decode(userInfo.substr(0, colon), parts.user);
  if (colon != std::string::npos) Poco::URI::decode(userInfo.substr(colon + 1), parts.password);
  parts.host = uri.getHost();
  if (parts.host.empty()) invalid("postgresql:// needs a host");
  if (uri.getPort() != 0) parts.port = uri.getPort();
  parts.database = uri.getPath();
  if (parts.database.starts_with("/")) parts.database.erase(0, 1);
  return parts;
}

bool hasOption(const PostgresParts& parts, const std::string& key) {
  for (const auto& [name, value] : parts.options) {
    if (name == key) return true;
  }
  return false;
}

std::string conninfo(const PostgresParts& parts) {
  std::string out = "host=" + conninfoValue(parts.host) + " port=" + std::to_string(parts.port);
  if (!parts.user.empty()) out += " user=" + conninfoValue(parts.user);
  if (!parts.password.empty()) out += " password=" + conninfoValue(parts.password);
  if (!parts.database.empty()) out += " dbname=" + conninfoValue(parts.database);
  for (const auto& [key, value] : parts.options) {
    if (!isParameterName(key)) invalid("invalid connection parameter name \"" + key + "\"");
    out += " " + key + "=" + conninfoValue(value);
  }
  // An unreachable server must not hang startup or a pool refill forever.
  if (!hasOption(parts, "connect_timeout")) out += " connect_timeout=10";
  if (!hasOption(parts, "application_name")) out += " application_name=rapport";
  return out;
}

std::string describe(const PostgresParts& parts) {
  std::string out = "postgresql://";
  if (!parts.user.empty()) out += parts.user + (parts.password.empty() ? "@" : ":***@");
  const bool ipv6 = parts.host.find(':') != std::string::npos;
  out += ipv6 ? "[" + parts.host + "]" : parts.host;
  return out + ":" + std::to_string(parts.port) + "/" + parts.database;
}

DatabaseUrl postgresUrl(const std::string& url) {
  const PostgresParts parts = postgresParts(url);
  return DatabaseUrl{Dialect::PostgreSQL, "postgresql", conninfo(parts), describe(parts)};
}

std::string schemeOf(const std::string& url) {
  const auto colon = url.find(':');
  return colon == std::string::npos ? std::string() : url.substr(0, colon);
}

}  // namespace

DatabaseUrl parseDatabaseUrl(const std::string& url) {
  const std::string scheme = schemeOf(url);
  if (scheme == "sqlite") return sqliteUrl(url.substr(scheme.size() + 1));
  if (scheme == "postgresql" || scheme == "postgres") return postgresUrl(url);
  // Only the scheme is echoed: the rest may hold a password.
  invalid("unsupported scheme \"" + scheme +
          "\" (use sqlite:<path> or postgresql://user:pass@host:port/db)");
}

void createParentDirectories(const std::string& sqlitePath) {
  const std::filesystem::path parent = std::filesystem::path(sqlitePath).parent_path();
  if (parent.empty()) return;
  std::error_code error;
  std::filesystem::create_directories(parent, error);
  if (error) invalid("cannot create directory " + parent.string() + ": " + error.message());
}

}  // namespace rapport::host
