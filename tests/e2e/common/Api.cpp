#include "e2e/common/Api.h"

#include <Poco/Data/PostgreSQL/Connector.h>
#include <Poco/Data/RecordSet.h>
#include <Poco/Data/SQLite/Connector.h>
#include <Poco/Data/Session.h>
#include <Poco/Data/Statement.h>
#include <Poco/Exception.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/SocketStream.h>
#include <Poco/Net/StreamSocket.h>

#include <algorithm>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include "rapport/time.h"
#include "support/TestEnv.h"

namespace rapport::e2e {

namespace {

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

bool isInteger(const std::string& text) {
  if (text.empty()) return false;
  std::size_t start = text[0] == '-' ? 1 : 0;
  if (start == text.size()) return false;
  return std::all_of(text.begin() + static_cast<std::ptrdiff_t>(start), text.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

// ---------------------------------------------------------------- accounts

std::string randomHex(std::size_t chars) {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < chars; ++i) out.push_back(digits[engine() % 16]);
  return out;
}

std::string uniqueEmail(const std::string& label) {
  return label + "-" + randomHex(12) + "@example.com";
}

Json registrationBody(const Account& account) {
  return Json::object({{"name", account.name},
                       {"email", account.email},
                       {"password", account.password},
                       {"password_confirmation", account.password},
                       {"company_name", account.companyName}});
}

Account registerUser(HttpClient& client, const std::string& label) {
  Account account;
  account.name = "Ada " + label;
  account.email = uniqueEmail(label);
  account.password = "correct horse " + randomHex(6);
  account.companyName = label + " Ltd " + randomHex(4);
  const HttpResult result = client.post("/v1/auth/register", registrationBody(account));
  if (result.status != 200 && result.status != 201) {
    CPPUNIT_FAIL("register failed: " + describe(result));
  }
  const Json data = E2E_ASSERT_JSON(result)["data"];
  if (!data["token"].isString() || !data["user"]["id"].isString() ||
      !data["user"]["company_id"].isString()) {
    CPPUNIT_FAIL("register answered without token, user.id or user.company_id: " +
                 describe(result));
  }
  account.token = data["token"].asString();
  account.userId = data["user"]["id"].asString();
  account.companyId = data["user"]["company_id"].asString();
  return account;
}

HttpResult login(HttpClient& client, const std::string& email, const std::string& password,
                 std::optional<bool> rememberMe) {
  Json body = Json::object({{"email", email}, {"password", password}});
  if (rememberMe) body.set("remember_me", *rememberMe);
  return client.post("/v1/auth/login", body);
}

std::string createCompany(HttpClient& client, const std::string& token, const std::string& name) {
  const HttpResult result =
      client.post("/v1/user/companies", Json::object({{"name", name}}), bearer(token));
  const Json data = E2E_ASSERT_DATA(201, result);
  if (!data["id"].isString()) CPPUNIT_FAIL("company without id: " + describe(result));
  return data["id"].asString();
}

std::string switchContext(HttpClient& client, const std::string& token,
                          const std::string& companyId) {
  const HttpResult result =
      client.post("/v1/auth/context", Json::object({{"company_id", companyId}}), bearer(token));
  const Json data = E2E_ASSERT_DATA(200, result);
  if (!data["token"].isString()) CPPUNIT_FAIL("context switch without token: " + describe(result));
  return data["token"].asString();
}

Headers bearer(const std::string& token, Headers extra) {
  extra["Authorization"] = "Bearer " + token;
  return extra;
}

// ---------------------------------------------------------------- paths

std::string testModulesDir() {
  return rapport::test::buildDir() + "/test-modules";
}
std::string testModulesCopyDir() {
  return rapport::test::buildDir() + "/test-modules-copy";
}

ServerProcess::Settings generousSettings(ServerProcess::Settings extra) {
  extra.emplace("ratelimit.requests", "1000000");
  extra.emplace("ratelimit.window", "60");
  return extra;
}

ServerProcess::Settings probeSettings(ServerProcess::Settings extra) {
  extra.emplace("modules.dir", testModulesDir());
  extra.emplace("modules.enabled", "probe");
  return generousSettings(std::move(extra));
}

// ---------------------------------------------------------------- assertions

std::string describe(const HttpResult& result) {
  std::string out = "HTTP " + std::to_string(result.status) + " " + result.reason + "\n";
  for (const auto& [name, value] : result.headers) out += "  " + name + ": " + value + "\n";
  out += result.body.size() > 2000 ? result.body.substr(0, 2000) + "..." : result.body;
  return out;
}

void assertStatus(int expected, const HttpResult& result, const CppUnit::SourceLine& line) {
  if (result.status != expected) {
    CppUnit::Asserter::fail(CppUnit::Message("status " + std::to_string(result.status) +
                                                 ", expected " + std::to_string(expected),
                                             describe(result)),
                            line);
  }
}

Json assertJson(const HttpResult& result, const CppUnit::SourceLine& line) {
  try {
    return result.json();
  } catch (const std::exception& e) {
    CppUnit::Asserter::fail(
        CppUnit::Message(std::string("body is not JSON: ") + e.what(), describe(result)), line);
  }
  return Json();
}

Json assertError(int expected, const HttpResult& result, const CppUnit::SourceLine& line) {
  assertStatus(expected, result, line);
  const Json body = assertJson(result, line);
  auto fail = [&](const std::string& why) {
    CppUnit::Asserter::fail(CppUnit::Message("error envelope: " + why, describe(result)), line);
  };
  if (!body.isObject()) fail("body is not an object");
  if (!body["message"].isString() || body["message"].asString().empty()) {
    fail("message missing or empty");
  }
  for (const auto& [key, value] : body.asObject()) {
    if (key != "message" && key != "errors") fail("unexpected member '" + key + "'");
  }
  if (const Json* errors = body.find("errors")) {
    if (expected != 422) fail("errors present on a " + std::to_string(expected));
    if (!errors->isObject() || errors->size() == 0) fail("errors is not a non-empty object");
    for (const auto& [field, messages] : errors->asObject()) {
      if (!messages.isArray() || messages.size() == 0) fail("errors." + field + " is not a list");
      for (const auto& m : messages.asArray()) {
        if (!m.isString() || m.asString().empty()) fail("errors." + field + " holds a non-string");
      }
    }
  }
  return body;
}

Json assertData(int expected, const HttpResult& result, const CppUnit::SourceLine& line) {
  assertStatus(expected, result, line);
  const Json body = assertJson(result, line);
  if (!body.isObject() || !body["message"].isString() || !body.contains("data")) {
    CppUnit::Asserter::fail(
        CppUnit::Message("success envelope: expected message and data", describe(result)), line);
  }
  if (body.contains("errors")) {
    CppUnit::Asserter::fail(CppUnit::Message("success envelope with errors", describe(result)),
                            line);
  }
  return body["data"];
}

void assertRateLimitHeaders(const HttpResult& result, const CppUnit::SourceLine& line) {
  auto fail = [&](const std::string& why) {
    CppUnit::Asserter::fail(CppUnit::Message("rate-limit headers: " + why, describe(result)), line);
  };
  for (const char* name : {"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"}) {
    if (!result.hasHeader(name)) fail(std::string(name) + " missing");
    if (!isInteger(trimmed(result.header(name)))) fail(std::string(name) + " is not an integer");
  }
  const std::int64_t limit = std::stoll(result.header("X-RateLimit-Limit"));
  const std::int64_t remaining = std::stoll(result.header("X-RateLimit-Remaining"));
  const std::int64_t reset = std::stoll(result.header("X-RateLimit-Reset"));
  if (limit < 1) fail("limit below 1");
  if (remaining < 0 || remaining > limit) fail("remaining outside [0, limit]");
  // A Unix time in seconds, not a delta: now or later (one second of slack
  // for a window that ended while the answer travelled).
  if (reset < unixNow() - 1) fail("reset is in the past (not a Unix time?)");
}

void assertCommonHeaders(const HttpResult& result, const CppUnit::SourceLine& line) {
  auto fail = [&](const std::string& why) {
    CppUnit::Asserter::fail(CppUnit::Message(why, describe(result)), line);
  };
  if (result.header("Content-Type").rfind("application/json", 0) != 0) {
    fail("Content-Type is not application/json");
  }
  if (!result.hasHeader("Content-Length")) fail("Content-Length missing");
  if (result.header("Content-Length") != std::to_string(result.body.size())) {
    fail("Content-Length differs from the body size");
  }
  if (result.header("X-Request-Id").empty()) fail("X-Request-Id missing");
  assertRateLimitHeaders(result, line);
}

std::int64_t assertIsoUtc(const Json& value, const CppUnit::SourceLine& line) {
  if (!value.isString() || value.asString().empty() || value.asString().back() != 'Z') {
    CppUnit::Asserter::fail(
        CppUnit::Message("not an ISO-8601 UTC timestamp ending in Z", value.dump()), line);
  }
  const auto micros = rapport::parseIsoTimestamp(value.asString());
  if (!micros) {
    CppUnit::Asserter::fail(CppUnit::Message("not an ISO-8601 timestamp", value.dump()), line);
  }
  return *micros / 1'000'000;
}

std::int64_t headerInt(const HttpResult& result, const std::string& name) {
  const std::string value = trimmed(result.header(name));
  if (!isInteger(value)) CPPUNIT_FAIL(name + " is not an integer: " + describe(result));
  return std::stoll(value);
}

std::vector<std::string> pluck(const Json& list, const std::string& key) {
  std::vector<std::string> out;
  if (!list.isArray()) return out;
  for (const auto& item : list.asArray()) {
    if (item[key].isString()) out.push_back(item[key].asString());
  }
  return out;
}

bool contains(const std::vector<std::string>& items, const std::string& item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

std::vector<std::string> splitComma(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    item = trimmed(item);
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

std::vector<std::string> linesContaining(const std::string& text, const std::string& needle) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find(needle) != std::string::npos) out.push_back(line);
  }
  return out;
}

std::int64_t unixNow() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool waitUntil(const std::function<bool()>& condition, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (true) {
    if (condition()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// ---------------------------------------------------------------- raw HTTP

HttpResult rawExchange(int port, const std::string& request) {
  Poco::Net::StreamSocket socket;
  socket.connect(Poco::Net::SocketAddress("127.0.0.1", static_cast<Poco::UInt16>(port)),
                 Poco::Timespan(10, 0));
  socket.setReceiveTimeout(Poco::Timespan(30, 0));
  std::size_t sent = 0;
  while (sent < request.size()) {
    const int n = socket.sendBytes(request.data() + sent, static_cast<int>(request.size() - sent));
    if (n <= 0) break;
    sent += static_cast<std::size_t>(n);
  }
  Poco::Net::SocketStream stream(socket);
  Poco::Net::HTTPResponse response;
  try {
    do {
      response.clear();
      response.read(stream);
    } while (response.getStatus() == Poco::Net::HTTPResponse::HTTP_CONTINUE);
  } catch (const Poco::Exception& e) {
    // No (readable) answer at all: status 0, the reason says why.
    HttpResult none;
    none.reason = "no HTTP response: " + e.displayText();
    return none;
  }
  HttpResult result;
  result.status = static_cast<int>(response.getStatus());
  result.reason = response.getReason();
  for (const auto& [name, value] : response) result.headers[name] = value;
  if (response.hasContentLength()) {
    std::string body(static_cast<std::size_t>(response.getContentLength64()), '\0');
    stream.read(body.data(), static_cast<std::streamsize>(body.size()));
    body.resize(static_cast<std::size_t>(stream.gcount()));
    result.body = std::move(body);
  }
  return result;
}

// ---------------------------------------------------------------- database

namespace {

void registerConnectors() {
  static std::once_flag registered;
  std::call_once(registered, [] {
    Poco::Data::SQLite::Connector::registerConnector();
    Poco::Data::PostgreSQL::Connector::registerConnector();
  });
}

}  // namespace

std::vector<std::vector<std::string>> queryDatabase(const std::string& databaseUrl,
                                                    const std::string& sql) {
  registerConnectors();
  const bool sqlite = databaseUrl.rfind("sqlite:", 0) == 0;
  Poco::Data::Session session =
      sqlite ? Poco::Data::Session("sqlite", databaseUrl.substr(7))
             : Poco::Data::Session("postgresql",
                                   rapport::test::pocoPostgresConnectionString(databaseUrl));
  Poco::Data::Statement select(session);
  select << sql;
  select.execute();
  Poco::Data::RecordSet rows(select);
  std::vector<std::vector<std::string>> out;
  for (std::size_t r = 0; r < rows.rowCount(); ++r) {
    std::vector<std::string> row;
    for (std::size_t c = 0; c < rows.columnCount(); ++c) {
      const Poco::Dynamic::Var value = rows.value(c, r);
      row.push_back(value.isEmpty() ? std::string() : value.convert<std::string>());
    }
    out.push_back(std::move(row));
  }
  return out;
}

struct SqliteWriteLock::Held {
  Poco::Data::Session session;
};

SqliteWriteLock::SqliteWriteLock(const std::string& databaseUrl) {
  if (databaseUrl.rfind("sqlite:", 0) != 0)
    throw std::invalid_argument("not SQLite: " + databaseUrl);
  registerConnectors();
  held_ = std::make_unique<Held>(Held{Poco::Data::Session("sqlite", databaseUrl.substr(7))});
  held_->session << "BEGIN IMMEDIATE", Poco::Data::Keywords::now;
}

SqliteWriteLock::~SqliteWriteLock() {
  try {
    held_->session << "ROLLBACK", Poco::Data::Keywords::now;
  } catch (...) {
    // Closing the session releases the lock as well.
  }
}

std::string sqlQuote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    out.push_back(c);
    if (c == '\'') out.push_back('\'');
  }
  return out + "'";
}

std::size_t insertContactEvents(const std::string& databaseUrl, const std::string& companyId,
                                int count, std::int64_t createdAtMicros,
                                std::int64_t sqliteSequenceBase) {
  const std::string n = std::to_string(count);
  const std::string sequence = rapport::test::onPostgres()
                                   ? std::string("0 - nextval('events_provisional')")
                                   : std::to_string(sqliteSequenceBase) + " + i";
  const std::string rows =
      rapport::test::onPostgres() ? " FROM generate_series(1, " + n + ") AS i" : " FROM n";
  const std::string numbers =
      rapport::test::onPostgres()
          ? std::string()
          : "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < " + n + ") ";
  const std::string sql =
      "INSERT INTO events (company_id, sequence, id, type, module, request_id, data, "
      "created_at) " +
      numbers + "SELECT " + sqlQuote(companyId) + ", " + sequence + ", 'evt_cap_" + randomHex() +
      "_' || i, 'crm.contact.created', 'contacts', NULL, " + sqlQuote("{\"id\":\"cont_cap\"}") +
      ", " + std::to_string(createdAtMicros) + rows + " RETURNING 1";
  const std::size_t inserted = queryDatabase(databaseUrl, sql).size();
  numberEvents(databaseUrl);
  return inserted;
}

void numberEvents(const std::string& databaseUrl) {
  if (rapport::test::onPostgres()) queryDatabase(databaseUrl, "SELECT events_number()");
}

}  // namespace rapport::e2e
