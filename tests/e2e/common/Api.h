// Helpers shared by the end-to-end suites: accounts, request headers,
// assertions on what every response must carry, raw HTTP for framing cases,
// and direct reads of the server's database.
//
// The assertions throw CppUnit failures that show the whole response, so a
// failing test says what the server answered.
#pragma once

#include <cppunit/extensions/HelperMacros.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rapport/http.h"
#include "rapport/json.h"
#include "support/HttpClient.h"
#include "support/ServerProcess.h"

namespace rapport::e2e {

using rapport::Headers;
using rapport::Json;
using rapport::test::HttpClient;
using rapport::test::HttpResult;
using rapport::test::ServerProcess;

// ---------------------------------------------------------------- accounts

// A registered user with the token of its registration.
struct Account {
  std::string name;
  std::string email;
  std::string password;
  std::string companyName;
  std::string token;
  std::string userId;
  std::string companyId;
};

// A random lower-case hex string of `chars` characters.
std::string randomHex(std::size_t chars = 12);
// An e-mail nobody else uses: <label>-<random>@example.com.
std::string uniqueEmail(const std::string& label = "user");
// The body of POST /v1/auth/register for `account` (name, email, password...).
Json registrationBody(const Account& account);
// Registers a new user (asserting 201) and returns it with its token and ids.
Account registerUser(HttpClient& client, const std::string& label = "user");
// POST /v1/auth/login; returns the raw answer.
HttpResult login(HttpClient& client, const std::string& email, const std::string& password,
                 std::optional<bool> rememberMe = std::nullopt);
// POST /v1/user/companies {name} with `token`, asserting 201; returns the company id.
std::string createCompany(HttpClient& client, const std::string& token, const std::string& name);
// POST /v1/auth/context {company_id} with `token`, asserting 200; returns the new token.
std::string switchContext(HttpClient& client, const std::string& token,
                          const std::string& companyId);

// Authorization: Bearer <token> (plus `extra`).
Headers bearer(const std::string& token, Headers extra = {});

// ---------------------------------------------------------------- paths

// <build>/test-modules and <build>/test-modules-copy (fixture modules).
std::string testModulesDir();
std::string testModulesCopyDir();
// Settings that load the probe fixture module (and a generous rate limit).
ServerProcess::Settings probeSettings(ServerProcess::Settings extra = {});
// Settings with a rate limit high enough that a suite never meets it.
ServerProcess::Settings generousSettings(ServerProcess::Settings extra = {});

// ---------------------------------------------------------------- assertions

// "HTTP 404 Not Found" + headers + body, for failure messages.
std::string describe(const HttpResult& result);

// Asserts the status (showing the whole response on failure).
void assertStatus(int expected, const HttpResult& result, const CppUnit::SourceLine& line);
// Asserts the body is JSON and returns it.
Json assertJson(const HttpResult& result, const CppUnit::SourceLine& line);
// The error envelope: status as expected; a JSON object whose only members
// are message (non-empty string) and, on 422 only, errors (a non-empty object
// of field -> non-empty list of strings). Returns the body.
Json assertError(int expected, const HttpResult& result, const CppUnit::SourceLine& line);
// The success envelope: status as expected, message (string) and data.
// Returns data.
Json assertData(int expected, const HttpResult& result, const CppUnit::SourceLine& line);
// X-RateLimit-Limit, -Remaining, -Reset present and integers; Remaining in
// [0, Limit]; Reset a Unix time not in the past.
void assertRateLimitHeaders(const HttpResult& result, const CppUnit::SourceLine& line);
// Content-Type application/json, Content-Length equal to the body size,
// X-Request-Id, the rate-limit headers.
void assertCommonHeaders(const HttpResult& result, const CppUnit::SourceLine& line);
// An ISO-8601 UTC timestamp ending in Z; returns it in Unix seconds.
std::int64_t assertIsoUtc(const Json& value, const CppUnit::SourceLine& line);

#define E2E_ASSERT_STATUS(expected, result) \
  ::rapport::e2e::assertStatus((expected), (result), CPPUNIT_SOURCELINE())
#define E2E_ASSERT_JSON(result) ::rapport::e2e::assertJson((result), CPPUNIT_SOURCELINE())
#define E2E_ASSERT_ERROR(expected, result) \
  ::rapport::e2e::assertError((expected), (result), CPPUNIT_SOURCELINE())
#define E2E_ASSERT_DATA(expected, result) \
  ::rapport::e2e::assertData((expected), (result), CPPUNIT_SOURCELINE())
#define E2E_ASSERT_RATE_HEADERS(result) \
  ::rapport::e2e::assertRateLimitHeaders((result), CPPUNIT_SOURCELINE())
#define E2E_ASSERT_COMMON_HEADERS(result) \
  ::rapport::e2e::assertCommonHeaders((result), CPPUNIT_SOURCELINE())
#define E2E_ASSERT_ISO_UTC(value) ::rapport::e2e::assertIsoUtc((value), CPPUNIT_SOURCELINE())

// Integer value of a header (fails when absent or not an integer).
std::int64_t headerInt(const HttpResult& result, const std::string& name);
// The string members of `list` (an array of objects) under `key`.
std::vector<std::string> pluck(const Json& list, const std::string& key);
bool contains(const std::vector<std::string>& items, const std::string& item);
// Splits "GET, POST" into {"GET", "POST"}.
std::vector<std::string> splitComma(const std::string& text);
// Lines of `text` that contain `needle`.
std::vector<std::string> linesContaining(const std::string& text, const std::string& needle);

// Current Unix time in seconds.
std::int64_t unixNow();
// Polls `condition` every 20 ms until it holds or `limit` passes; returns
// whether it held.
bool waitUntil(const std::function<bool()>& condition, std::chrono::milliseconds limit);

// ---------------------------------------------------------------- raw HTTP

// Writes `request` bytes as they are over a new connection and reads one
// response (status line, headers, Content-Length body). For framing cases
// HttpClient cannot produce (no Content-Length, ...). Status 0 when no
// response could be read (the reason says why).
HttpResult rawExchange(int port, const std::string& request);

// ---------------------------------------------------------------- database

// Runs `sql` against the server's database (SQLite file or PostgreSQL URL)
// and returns every row, each value converted to a string ("" for NULL).
std::vector<std::vector<std::string>> queryDatabase(const std::string& databaseUrl,
                                                    const std::string& sql);
// 'text' with quotes doubled, for literals in queryDatabase.
std::string sqlQuote(const std::string& text);
// What a reader of the event log does first (the host's EventLogReader): on
// PostgreSQL, numbers every committed event still unnumbered (events_number,
// migration 0016), so reading `events` by its sequence sees every event
// committed before. Nothing on SQLite, which numbers in the write.
void numberEvents(const std::string& databaseUrl);

// Writes `count` crm.contact.created events of `companyId` straight into the
// event log (a backlog larger than a test could make through the API in
// time): ids evt_cap_<random>_<n>, data {"id":"cont_cap"}, created at
// `createdAtMicros`. On PostgreSQL they are numbered after their commit, as
// the host numbers a writer's (events_number, migration 0016); on SQLite they take the sequences
// sqliteSequenceBase + 1 .. + count. Returns how many rows were written.
std::size_t insertContactEvents(const std::string& databaseUrl, const std::string& companyId,
                                int count, std::int64_t createdAtMicros,
                                std::int64_t sqliteSequenceBase);

// Holds the write lock of a SQLite database (a "sqlite:" URL) from another
// connection until destroyed: what another process writing to the file looks
// like to rapportd. Reads still work beside it (WAL).
class SqliteWriteLock {
 public:
  explicit SqliteWriteLock(const std::string& databaseUrl);
  ~SqliteWriteLock();
  SqliteWriteLock(const SqliteWriteLock&) = delete;
  SqliteWriteLock& operator=(const SqliteWriteLock&) = delete;

 private:
  struct Held;
  std::unique_ptr<Held> held_;
};

}  // namespace rapport::e2e
