// The in-process test harness: a module's tests without HTTP plumbing.
//
//   rapport::testing::Harness harness({.modules = {"products"}});
//   rapport::testing::Client alice = harness.signUp();  // owns a new company
//   rapport::testing::Reply made =
//       alice.post("/v1/crm/products", rapport::Json::object({{"name", "Lamp"}}));
//   assert(made.status == 201 && made.data()["name"].asString() == "Lamp");
//   assert(harness.events(alice).back()["type"].asString() == "crm.product.created");
//
// What it is: the real host, the same code as rapportd (storage, migrations,
// accounts, the request pipeline with authentication, tenancy, roles, errors,
// rate limits and versioning, the event log, jobs running on their threads),
// with the modules under
// test and the modules they depend on loaded from their built files, minus
// the sockets: a Client's request goes through the pipeline on the calling
// thread, and its Reply is what a client would have received.
//
// Database: a fresh one per Harness, removed with it.
//   - SQLite (the default): a file in a new temporary folder.
//   - PostgreSQL: when HarnessOptions::databaseUrl, or else the environment
//     variable RAPPORT_TEST_DATABASE_URL, names a server
//     ("postgresql://user@127.0.0.1:5432/postgres"), a database with a random
//     name is created there (the user needs CREATEDB) and dropped at the end.
//
// Modules: the files rapport_<name>.so in HarnessOptions::moduleDirs, or else
// in the folders of RAPPORT_TEST_MODULE_DIRS (':'-separated), which the CMake
// helper rapport_add_module_test() sets. The dependencies a module's info()
// declares are loaded too; its optional modules only when listed.
//
// Errors: the constructor throws std::runtime_error with the host's one-line
// reason (a module refused, a migration failed). Requests never throw: a
// module's exception is the 500 a client would see.
//
// Threading: Harnesses are independent (one per test is the rule). A Client
// may be used from several threads at once, to test races. Everything from a
// Harness must be dropped before the Harness.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rapport/db.h"
#include "rapport/export.h"
#include "rapport/http.h"
#include "rapport/json.h"
#include "rapport/roles.h"

namespace rapport::testing {

// One answer, as a client sees it.
struct RAPPORT_SDK_API Reply {
  int status = 0;
  Headers headers;
  std::string text;  // the body as sent
  Json body;         // the body parsed (the envelope); null when empty or not JSON

  // body["data"] (null when absent).
  const Json& data() const;
  // body["meta"] (null when absent).
  const Json& meta() const;
  // body["message"] as text ("" when absent).
  std::string message() const;
  // The messages of body["errors"][field] ({} when none).
  std::vector<std::string> fieldErrors(std::string_view field) const;
  // A header, by case-insensitive name.
  std::optional<std::string> header(std::string_view name) const;
};

class HarnessState;

// Calls routes as one user of one company (or as nobody). Paths are full,
// with the version and the query string: "/v1/crm/products?search=lamp".
// Cheap to copy; copies share the user.
class RAPPORT_SDK_API Client {
 public:
  Reply get(const std::string& path) const;
  Reply post(const std::string& path, const Json& body) const;
  Reply put(const std::string& path, const Json& body) const;
  Reply patch(const std::string& path, const Json& body) const;
  Reply del(const std::string& path) const;
  // Any request: `body` is sent as is (no body when nullopt); `headers` are
  // added to the Authorization header of the client (when it has a user).
  Reply request(const std::string& method, const std::string& path,
                const std::optional<std::string>& body = std::nullopt,
                const Headers& headers = {}) const;

  // Empty for an anonymous client.
  const std::string& userId() const { return userId_; }
  const std::string& companyId() const { return companyId_; }
  const std::string& email() const { return email_; }
  const std::string& token() const { return token_; }
  Role role() const { return role_; }

 private:
  friend class Harness;
  std::shared_ptr<HarnessState> state_;
  std::string userId_;
  std::string companyId_;
  std::string email_;
  std::string token_;
  Role role_ = Role::Member;
};

// Every member has a default (`= {}`), so designated initializers may name
// only what they set ({.modules = {"products"}}) without
// -Wmissing-field-initializers.
struct HarnessOptions {
  // The modules under test, by name ("products"); their dependencies are
  // added. Empty: the host alone (accounts and utility routes).
  std::vector<std::string> modules = {};
  // Where rapport_<name>.so files are; empty: RAPPORT_TEST_MODULE_DIRS.
  std::vector<std::filesystem::path> moduleDirs = {};
  // A PostgreSQL server to create the database on; empty:
  // RAPPORT_TEST_DATABASE_URL; neither: SQLite.
  std::string databaseUrl = {};
  // Any rapportd configuration key ("ratelimit.requests" = "5"). The harness
  // sets, unless given here: rate limits high enough not to matter
  // (ratelimit.requests), the cheapest password hashing the host accepts
  // (auth.argon2.*), mail to an outbox and the secrets key file in the
  // temporary folder, a small pool (database.pool_size = 4) and
  // log.level = warn. It always sets database.url, modules.dir and
  // modules.enabled. The process's RAPPORT_* variables are not read.
  std::map<std::string, std::string> settings = {};
  // The address requests come from (rate limits per client address).
  std::string clientAddress = "192.0.2.10";
};

class RAPPORT_SDK_API Harness {
 public:
  explicit Harness(HarnessOptions options = {});
  ~Harness();
  Harness(const Harness&) = delete;
  Harness& operator=(const Harness&) = delete;

  // A new user who owns a new company (POST /v1/auth/register), signed in.
  // E-mails are unique per Harness. Throws std::runtime_error when the host
  // refuses the registration.
  Client signUp();
  // A new user who joins `owner`'s company with `role`, signed in: registered
  // like signUp() (so they also own a company of their own), added by
  // `owner` (POST /v1/company/members), then switched to `owner`'s company
  // (POST /v1/auth/context). Throws std::runtime_error naming the step when
  // the host refuses one (an `owner` who may not add members).
  Client join(const Client& owner, Role role);
  // No token: public routes, and the 401 of the others.
  Client anonymous();

  // The events recorded for `client`'s company (the event log, oldest
  // first), each {"type", "module", "data", "sequence", "request_id",
  // "occurred_at"}.
  std::vector<Json> events(const Client& client);

  Dialect dialect() const;
  // The database, for what a test checks below the API.
  Database& database();

 private:
  std::shared_ptr<HarnessState> state_;
};

}  // namespace rapport::testing
