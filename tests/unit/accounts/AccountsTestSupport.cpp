#include "AccountsTestSupport.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "rapport/time.h"
#include "storage/Migrator.h"
#include "support/TestEnv.h"

namespace rapport::test::accounts {

namespace {

namespace fs = std::filesystem;

std::string readFile(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

// The host's migration set, as the app embeds it (same ids, both dialects).
std::vector<rapport::Migration> hostMigrations() {
  const fs::path root = fs::path(rapport::test::sourceDir()) / "migrations";
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(root / "sqlite")) {
    if (entry.path().extension() == ".sql") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<rapport::Migration> out;
  for (const fs::path& file : files) {
    out.push_back(
        {file.stem().string(), readFile(file), readFile(root / "postgresql" / file.filename())});
  }
  return out;
}

void RecordingMailer::send(rapport::host::mail::MailMessage message) {
  // The same refusal as the real mailer (Mailer.h): one plain address.
  const auto at = message.to.find('@');
  if (at == std::string::npos || at == 0 || at + 1 == message.to.size() ||
      message.to.find_first_of("\r\n,<> ") != std::string::npos) {
    throw std::invalid_argument("mail recipient must be one plain address");
  }
  std::lock_guard lock(mutex_);
  messages_.push_back(std::move(message));
}

std::vector<rapport::host::mail::MailMessage> RecordingMailer::messages() const {
  std::lock_guard lock(mutex_);
  return messages_;
}

void RecordingMailer::clear() {
  std::lock_guard lock(mutex_);
  messages_.clear();
}

std::unique_ptr<rapport::host::SqlDatabase> openMigratedDatabase(const std::string& url,
                                                                 std::size_t poolSize) {
  rapport::host::StorageOptions options;
  options.url = url.empty() ? rapport::test::freshDatabaseUrl("accounts") : url;
  options.poolSize = poolSize;
  auto db = rapport::host::SqlDatabase::open(options);
  rapport::host::Migrator(*db).apply({{"host", hostMigrations()}});
  return db;
}

ManualClock::ManualClock() {
  constexpr std::int64_t kWindow = 60 * rapport::host::accounts::kMicrosPerSecond;
  const std::int64_t now = rapport::nowMicros();
  now_ = now - now % kWindow + rapport::host::accounts::kMicrosPerSecond;
}

rapport::host::accounts::Clock ManualClock::clock() {
  return [this] { return now_.load(); };
}

void ManualClock::advanceSeconds(std::int64_t seconds) {
  now_ += seconds * rapport::host::accounts::kMicrosPerSecond;
}

void ManualClock::advanceMicros(std::int64_t micros) {
  now_ += micros;
}

std::string MapConfig::getString(const std::string& key, const std::string& fallback) const {
  auto it = values.find(key);
  return it == values.end() ? fallback : it->second;
}

std::int64_t MapConfig::getInt(const std::string& key, std::int64_t fallback) const {
  auto it = values.find(key);
  if (it == values.end()) return fallback;
  std::size_t used = 0;
  try {
    const long long value = std::stoll(it->second, &used);
    if (used == it->second.size()) return value;
  } catch (const std::exception&) {
  }
  throw std::invalid_argument(key + " must be an integer");
}

bool MapConfig::getBool(const std::string& key, bool fallback) const {
  auto it = values.find(key);
  return it == values.end() ? fallback : it->second == "true";
}

void FakeRegistry::route(const std::string& method, const std::string& path,
                         rapport::Handler handler, rapport::RouteOptions options) {
  routes[method + " " + path] = {std::move(handler), std::move(options)};
}

void FakeRegistry::recordType(const std::string& type, rapport::RecordType record) {
  recordTypes[type] = std::move(record);
}

rapport::Response FakeRegistry::call(const std::string& method, const std::string& path,
                                     rapport::Request request) const {
  auto it = routes.find(method + " " + path);
  if (it == routes.end()) throw std::logic_error("no route " + method + " " + path);
  request.method = method;
  request.path = "/v1" + path;
  request.apiVersion = "v1";
  const rapport::RouteOptions& options = it->second.options;
  if (options.access == rapport::Access::Authenticated && !request.identity.authenticated) {
    throw rapport::Error::unauthorized();
  }
  if (!options.roles.empty() && std::find(options.roles.begin(), options.roles.end(),
                                          request.identity.role) == options.roles.end()) {
    throw rapport::Error::forbidden();
  }
  return it->second.handler(request);
}

rapport::Request makeRequest(rapport::Json body, std::optional<rapport::Identity> identity,
                             const std::string& clientAddress) {
  rapport::Request request;
  request.hasBody = !body.isNull();
  request.body = std::move(body);
  request.clientAddress = clientAddress;
  if (identity) request.identity = *identity;
  return request;
}

}  // namespace rapport::test::accounts
