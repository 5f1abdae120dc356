// AccountsModule routes, called through a fake Registry with hand-built
// requests (no HTTP): register, login (throttle, disabled), refresh, logout,
// me, context switch, and the user-side company endpoints.
#include <cppunit/extensions/HelperMacros.h>

#include <memory>
#include <set>

#include "AccountsTestSupport.h"
#include "accounts/AccountsModule.h"
#include "accounts/UserStore.h"
#include "rapport/ids.h"
#include "ratelimit/MemoryAttemptLog.h"

namespace acc = rapport::host::accounts;
using rapport::Json;
using rapport::Request;
using rapport::Response;
using rapport::test::accounts::expectError;
using rapport::test::accounts::FakeHost;
using rapport::test::accounts::FakeRegistry;
using rapport::test::accounts::makeRequest;
using rapport::test::accounts::ManualClock;
using rapport::test::accounts::RecordingMailer;

namespace {

// One hasher for the whole run: each costs a hash at construction.
acc::PasswordHasher& sharedHasher() {
  static acc::PasswordHasher hasher;
  return hasher;
}

Json registration(const std::string& email, const std::string& company = "Acme") {
  return Json::object({{"name", "Ann Lee"},
                       {"email", email},
                       {"password", "ann-s3cret-phrase"},
                       {"password_confirmation", "ann-s3cret-phrase"},
                       {"company_name", company}});
}

bool hasFieldError(const rapport::Error& e, const std::string& field, const std::string& text) {
  auto it = e.errors().find(field);
  if (it == e.errors().end()) return false;
  for (const std::string& message : it->second) {
    if (message == text) return true;
  }
  return text.empty();
}

}  // namespace

class AccountsModuleTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(AccountsModuleTest);
  CPPUNIT_TEST(testRegistration);
  CPPUNIT_TEST(testRoutesAndRecordType);
  CPPUNIT_TEST(testRegisterValidation);
  CPPUNIT_TEST(testRegisterDuplicateEmail);
  CPPUNIT_TEST(testDuplicateInsertIsUniqueViolation);
  CPPUNIT_TEST(testLogin);
  CPPUNIT_TEST(testLoginFailures);
  CPPUNIT_TEST(testLoginThrottle);
  CPPUNIT_TEST(testSuccessDoesNotCountTowardsThrottle);
  CPPUNIT_TEST(testDisabledAccount);
  CPPUNIT_TEST(testSecondFactorSeam);
  CPPUNIT_TEST(testRefreshAndLogout);
  CPPUNIT_TEST(testMe);
  CPPUNIT_TEST(testContextSwitch);
  CPPUNIT_TEST(testContextErrors);
  CPPUNIT_TEST(testUserCompanies);
  CPPUNIT_TEST(testUserCompanyDetail);
  CPPUNIT_TEST(testUserCompaniesSort);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override {
    db_ = rapport::test::accounts::openMigratedDatabase();
    tokens_ = std::make_unique<acc::TokenService>(*db_, acc::TokenOptions{}, time_.clock());
    host_ = std::make_unique<FakeHost>(*db_);
    module_ = std::make_unique<acc::AccountsModule>(
        acc::AccountsOptions{}, *tokens_, sharedHasher(), mailer_, attempts_, time_.clock());
    module_->setup(*host_, registry_);
  }

  void tearDown() override {
    module_.reset();
    host_.reset();
    tokens_.reset();
    db_.reset();
  }

  void testRegistration() {
    const Response r = post("/auth/register", registration("  Ann.Lee@Example.com "));
    CPPUNIT_ASSERT_EQUAL(201, r.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Registered."), r.message);
    const Json& data = *r.data;
    CPPUNIT_ASSERT_EQUAL(std::string("Bearer"), data["token_type"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3600}, data["expires_in"].asInt());
    CPPUNIT_ASSERT(data["expires_at"].isString());
    const Json& user = data["user"];
    CPPUNIT_ASSERT(rapport::hasPrefix(user["id"].asString(), "user_"));
    CPPUNIT_ASSERT_EQUAL(std::string("Ann Lee"), user["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Ann.Lee@Example.com"), user["email"].asString());
    CPPUNIT_ASSERT(rapport::hasPrefix(user["company_id"].asString(), "comp_"));
    const auto identity = tokens_->authenticate(data["token"].asString());
    CPPUNIT_ASSERT(identity);
    CPPUNIT_ASSERT_EQUAL(user["id"].asString(), identity->userId);
    CPPUNIT_ASSERT_EQUAL(user["company_id"].asString(), identity->companyId);
    CPPUNIT_ASSERT(identity->role == rapport::Role::Owner);
    const rapport::Row row = db_->query("SELECT * FROM users").front();
    CPPUNIT_ASSERT_EQUAL(std::string("ann.lee@example.com"), row.str("email_lower"));
    CPPUNIT_ASSERT(row.str("password_hash").rfind("$argon2id$", 0) == 0);
    CPPUNIT_ASSERT(!row.flag("disabled"));
    CPPUNIT_ASSERT(!row.flag("two_factor_enabled"));
  }

  void testRoutesAndRecordType() {
    CPPUNIT_ASSERT(registry_.routes.at("POST /auth/register").options.access ==
                   rapport::Access::Public);
    CPPUNIT_ASSERT(registry_.routes.at("POST /auth/login").options.access ==
                   rapport::Access::Public);
    // Refresh reads its token itself (a refreshed token must reach it).
    CPPUNIT_ASSERT(registry_.routes.at("POST /auth/refresh").options.access ==
                   rapport::Access::Public);
    for (const char* route :
         {"POST /auth/logout", "GET /auth/me", "POST /auth/context", "GET /user/companies",
          "POST /user/companies", "GET /user/companies/{id}", "GET /user/profile",
          "PATCH /user/profile", "PATCH /user/password", "GET /company/members",
          "POST /company/members", "PATCH /company/members/{user_id}",
          "DELETE /company/members/{user_id}"}) {
      CPPUNIT_ASSERT_MESSAGE(
          route, registry_.routes.at(route).options.access == rapport::Access::Authenticated);
    }
    CPPUNIT_ASSERT_EQUAL(std::string("accounts"), module_->info().name);
    const std::string token = registerUser("ann@example.com");
    const auto ann = *tokens_->authenticate(token);
    const std::string bobToken = registerUser("bob@example.com");
    const auto bob = *tokens_->authenticate(bobToken);
    rapport::Queryable& q = *db_;
    const auto& exists = registry_.recordTypes.at("user").exists;
    const auto plain = rapport::RecordLock::None;
    CPPUNIT_ASSERT(exists(q, ann.companyId, ann.userId, plain));
    CPPUNIT_ASSERT(!exists(q, ann.companyId, bob.userId, plain));
    CPPUNIT_ASSERT(!exists(q, ann.companyId, "cont_" + ann.userId.substr(5), plain));
    CPPUNIT_ASSERT(!registry_.recordTypes.at("user").fetch);
    std::set<std::string> jobs;
    for (const rapport::Job& job : registry_.jobs) jobs.insert(job.name);
    for (const char* job : {"token-purge", "password-reset", "password-reset-purge"}) {
      CPPUNIT_ASSERT_MESSAGE(job, jobs.count(job) == 1);
    }
  }

  void testRegisterValidation() {
    auto e = expectError([&] { post("/auth/register", Json::object()); });
    CPPUNIT_ASSERT_EQUAL(422, e.status());
    for (const char* field :
         {"name", "email", "password", "password_confirmation", "company_name"}) {
      CPPUNIT_ASSERT_MESSAGE(field, hasFieldError(e, field, ""));
    }
    Json body = registration("ann@example.com");
    body.set("password_confirmation", "password124");
    e = expectError([&] { post("/auth/register", body); });
    CPPUNIT_ASSERT(hasFieldError(e, "password", "The password confirmation does not match."));
    body = registration("ann@example.com");
    body.set("password", "short");
    body.set("password_confirmation", "short");
    e = expectError([&] { post("/auth/register", body); });
    CPPUNIT_ASSERT(hasFieldError(e, "password", ""));
    body = registration("not-an-email");
    e = expectError([&] { post("/auth/register", body); });
    CPPUNIT_ASSERT(hasFieldError(e, "email", ""));
    body = registration("ann@example.com");
    body.set("password", std::string(129, 'x'));
    body.set("password_confirmation", std::string(129, 'x'));
    e = expectError([&] { post("/auth/register", body); });
    CPPUNIT_ASSERT(hasFieldError(e, "password", ""));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, count("users"));
  }

  void testRegisterDuplicateEmail() {
    registerUser("ann@example.com");
    const auto e = expectError([&] { post("/auth/register", registration("ANN@example.COM")); });
    CPPUNIT_ASSERT_EQUAL(422, e.status());
    CPPUNIT_ASSERT(hasFieldError(e, "email", "The email has already been taken."));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, count("users"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, count("companies"));
  }

  void testDuplicateInsertIsUniqueViolation() {
    // What register relies on when a concurrent registration wins the race
    // between its check and its insert: the engine reports a unique violation.
    registerUser("ann@example.com");
    rapport::Queryable& q = *db_;
    acc::UserRecord twin;
    twin.id = rapport::newId("user_");
    twin.name = "Twin";
    twin.email = "ANN@EXAMPLE.COM";
    try {
      acc::users::insert(q, twin);
      CPPUNIT_FAIL("duplicate e-mail was inserted");
    } catch (const rapport::DbError& e) {
      CPPUNIT_ASSERT(e.isUniqueViolation());
    }
  }

  void testLogin() {
    registerUser("ann@example.com");
    Response r = post("/auth/login", login("ANN@example.com", "ann-s3cret-phrase"));
    CPPUNIT_ASSERT_EQUAL(200, r.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Logged in."), r.message);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3600}, (*r.data)["expires_in"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::string("ann@example.com"), (*r.data)["user"]["email"].asString());
    const auto identity = tokens_->authenticate((*r.data)["token"].asString());
    CPPUNIT_ASSERT(identity);
    CPPUNIT_ASSERT_EQUAL((*r.data)["user"]["company_id"].asString(), identity->companyId);

    Json remember = login("ann@example.com", "ann-s3cret-phrase");
    remember.set("remember_me", true);
    r = post("/auth/login", remember);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2592000}, (*r.data)["expires_in"].asInt());
  }

  void testLoginFailures() {
    registerUser("ann@example.com");
    auto e = expectError([&] { post("/auth/login", login("ann@example.com", "wrong-pass")); });
    CPPUNIT_ASSERT_EQUAL(401, e.status());
    CPPUNIT_ASSERT_EQUAL(std::string("Invalid credentials."), std::string(e.what()));
    e = expectError([&] { post("/auth/login", login("nobody@example.com", "ann-s3cret-phrase")); });
    CPPUNIT_ASSERT_EQUAL(401, e.status());
    CPPUNIT_ASSERT_EQUAL(std::string("Invalid credentials."), std::string(e.what()));
    e = expectError([&] { post("/auth/login", Json::object()); });
    CPPUNIT_ASSERT_EQUAL(422, e.status());
    CPPUNIT_ASSERT(hasFieldError(e, "email", "") && hasFieldError(e, "password", ""));
    Json badRemember = login("ann@example.com", "ann-s3cret-phrase");
    badRemember.set("remember_me", "yes");
    e = expectError([&] { post("/auth/login", badRemember); });
    CPPUNIT_ASSERT(hasFieldError(e, "remember_me", ""));
  }

  void testLoginThrottle() {
    registerUser("ann@example.com");
    for (int i = 0; i < 5; ++i) {
      const auto e =
          expectError([&] { post("/auth/login", login("ann@example.com", "nope1234")); });
      CPPUNIT_ASSERT_EQUAL(401, e.status());
    }
    // Blocked now, even with the right password, and the e-mail's case does not matter.
    auto e =
        expectError([&] { post("/auth/login", login("Ann@Example.com", "ann-s3cret-phrase")); });
    CPPUNIT_ASSERT_EQUAL(429, e.status());
    CPPUNIT_ASSERT(!e.headers().empty());
    CPPUNIT_ASSERT_EQUAL(std::string("Retry-After"), e.headers().front().first);
    CPPUNIT_ASSERT(std::stol(e.headers().front().second) >= 1);
    // Another client address is not blocked.
    CPPUNIT_ASSERT_EQUAL(
        200,
        post("/auth/login", login("ann@example.com", "ann-s3cret-phrase"), "198.51.100.7").status);
    time_.advanceSeconds(60);
    CPPUNIT_ASSERT_EQUAL(200,
                         post("/auth/login", login("ann@example.com", "ann-s3cret-phrase")).status);
  }

  void testSuccessDoesNotCountTowardsThrottle() {
    registerUser("ann@example.com");
    for (int i = 0; i < 4; ++i) {
      expectError([&] { post("/auth/login", login("ann@example.com", "nope1234")); });
    }
    for (int i = 0; i < 3; ++i) {
      CPPUNIT_ASSERT_EQUAL(
          200, post("/auth/login", login("ann@example.com", "ann-s3cret-phrase")).status);
    }
    auto e = expectError([&] { post("/auth/login", login("ann@example.com", "nope1234")); });
    CPPUNIT_ASSERT_EQUAL(401, e.status());
    e = expectError([&] { post("/auth/login", login("ann@example.com", "ann-s3cret-phrase")); });
    CPPUNIT_ASSERT_EQUAL(429, e.status());
  }

  void testDisabledAccount() {
    registerUser("ann@example.com");
    db_->exec("UPDATE users SET disabled = ?", {true});
    auto e =
        expectError([&] { post("/auth/login", login("ann@example.com", "ann-s3cret-phrase")); });
    CPPUNIT_ASSERT_EQUAL(403, e.status());
    CPPUNIT_ASSERT_EQUAL(std::string("This account has been disabled."), std::string(e.what()));
    // Without the password, a disabled account looks like any failure.
    e = expectError([&] { post("/auth/login", login("ann@example.com", "wrong-pass")); });
    CPPUNIT_ASSERT_EQUAL(401, e.status());
  }

  void testSecondFactorSeam() {
    registerUser("ann@example.com");
    db_->exec("UPDATE users SET two_factor_enabled = ?", {true});
    bool remembered = false;
    module_->setSecondFactorGate([&](const acc::UserRecord& user, bool remember) {
      remembered = remember;
      return Response::ok(Json::object({{"two_factor_required", true}, {"user", user.id}}),
                          "Two-factor authentication required.");
    });
    Json body = login("ann@example.com", "ann-s3cret-phrase");
    body.set("remember_me", true);
    const Response r = post("/auth/login", body);
    CPPUNIT_ASSERT((*r.data)["two_factor_required"].asBool());
    CPPUNIT_ASSERT(!r.data->contains("token"));
    CPPUNIT_ASSERT(remembered);
  }

  void testRefreshAndLogout() {
    const std::string token = registerUser("ann@example.com");
    time_.advanceSeconds(30);
    const Response r = authed("POST", "/auth/refresh", token);
    CPPUNIT_ASSERT_EQUAL(200, r.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Token refreshed."), r.message);
    const std::string fresh = (*r.data)["token"].asString();
    CPPUNIT_ASSERT(fresh != token);
    CPPUNIT_ASSERT_EQUAL(std::string("Bearer"), (*r.data)["token_type"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3600}, (*r.data)["expires_in"].asInt());
    CPPUNIT_ASSERT(!r.data->contains("user"));
    const rapport::Identity freshIdentity = identityOf(fresh);
    const Response out = authed("POST", "/auth/logout", fresh);
    CPPUNIT_ASSERT_EQUAL(std::string("Logged out."), out.message);
    CPPUNIT_ASSERT(!out.data);
    CPPUNIT_ASSERT(!tokens_->authenticate(fresh));
    // A logged-out token can no longer be refreshed either.
    Request again = makeRequest(Json(), freshIdentity);
    again.headers["Authorization"] = "Bearer " + fresh;
    const auto e = expectError([&] { registry_.call("POST", "/auth/refresh", again); });
    CPPUNIT_ASSERT_EQUAL(401, e.status());
  }

  void testMe() {
    const std::string token = registerUser("Ann@Example.com");
    const Response r = authed("GET", "/auth/me", token);
    const Json& me = *r.data;
    const auto identity = identityOf(token);
    CPPUNIT_ASSERT_EQUAL(identity.userId, me["id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Ann Lee"), me["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Ann@Example.com"), me["email"].asString());
    CPPUNIT_ASSERT_EQUAL(identity.companyId, me["company_id"].asString());
    CPPUNIT_ASSERT_EQUAL(false, me["two_factor_enabled"].asBool());
    CPPUNIT_ASSERT_EQUAL(rapport::isoTimestamp(time_.now()), me["created_at"].asString());
  }

  void testContextSwitch() {
    const std::string token = registerUser("ann@example.com");
    const std::string first = identityOf(token).companyId;
    const Response created =
        authed("POST", "/user/companies", token, Json::object({{"name", "Second Co"}}));
    const std::string second = (*created.data)["id"].asString();
    const Response r =
        authed("POST", "/auth/context", token, Json::object({{"company_id", second}}));
    CPPUNIT_ASSERT_EQUAL(std::string("Company switched."), r.message);
    const Json& data = *r.data;
    CPPUNIT_ASSERT_EQUAL(second, data["company_id"].asString());
    CPPUNIT_ASSERT_EQUAL(second, data["company"]["id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Second Co"), data["company"]["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("owner"), data["company"]["role"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Bearer"), data["token_type"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3600}, data["expires_in"].asInt());
    CPPUNIT_ASSERT_EQUAL(second, identityOf(data["token"].asString()).companyId);
    CPPUNIT_ASSERT_EQUAL(first, identityOf(token).companyId);  // the old token is untouched
  }

  void testContextErrors() {
    const std::string ann = registerUser("ann@example.com");
    const std::string bob = registerUser("bob@example.com");
    const std::string bobCompany = identityOf(bob).companyId;
    auto e = expectError([&] { authed("POST", "/auth/context", ann, Json::object()); });
    CPPUNIT_ASSERT_EQUAL(422, e.status());
    CPPUNIT_ASSERT(hasFieldError(e, "company_id", ""));
    e = expectError([&] {
      authed("POST", "/auth/context", ann, Json::object({{"company_id", 42}}));
    });
    CPPUNIT_ASSERT_EQUAL(422, e.status());
    for (const std::string& id :
         {rapport::newId("comp_"), rapport::newId("cont_"), "user_" + bobCompany.substr(5)}) {
      e = expectError([&] {
        authed("POST", "/auth/context", ann, Json::object({{"company_id", id}}));
      });
      CPPUNIT_ASSERT_EQUAL(404, e.status());
      CPPUNIT_ASSERT_EQUAL(std::string("Company not found."), std::string(e.what()));
    }
    e = expectError([&] {
      authed("POST", "/auth/context", ann, Json::object({{"company_id", bobCompany}}));
    });
    CPPUNIT_ASSERT_EQUAL(403, e.status());
    CPPUNIT_ASSERT_EQUAL(std::string("You do not have access to this company."),
                         std::string(e.what()));
  }

  void testUserCompanies() {
    const std::string token = registerUser("ann@example.com", "First");
    time_.advanceSeconds(1);
    const Response created =
        authed("POST", "/user/companies", token, Json::object({{"name", "  Second  "}}));
    CPPUNIT_ASSERT_EQUAL(201, created.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Second"), (*created.data)["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("owner"), (*created.data)["role"].asString());
    CPPUNIT_ASSERT(rapport::hasPrefix((*created.data)["id"].asString(), "comp_"));
    CPPUNIT_ASSERT((*created.data)["created_at"].isString());
    registerUser("bob@example.com", "Bob's");

    Response list = authed("GET", "/user/companies", token);
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, list.data->size());
    CPPUNIT_ASSERT_EQUAL(std::string("Second"), list.data->asArray()[0]["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("First"), list.data->asArray()[1]["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, (*list.meta)["total"].asInt());

    Request paged = makeRequest(Json(), identityOf(token));
    paged.query = {{"page", "2"}, {"per_page", "1"}};
    list = registry_.call("GET", "/user/companies", paged);
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, list.data->size());
    CPPUNIT_ASSERT_EQUAL(std::string("First"), list.data->asArray()[0]["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, (*list.meta)["last_page"].asInt());

    const auto e = expectError([&] { authed("POST", "/user/companies", token, Json::object()); });
    CPPUNIT_ASSERT_EQUAL(422, e.status());
    CPPUNIT_ASSERT(hasFieldError(e, "name", ""));
  }

  void testUserCompanyDetail() {
    const std::string ann = registerUser("ann@example.com");
    const std::string bob = registerUser("bob@example.com");
    const std::string annCompany = identityOf(ann).companyId;
    db_->exec("INSERT INTO memberships (company_id, user_id, role, created_at) VALUES (?, ?, ?, ?)",
              {annCompany, identityOf(bob).userId, "member", time_.now()});
    Response r = detail(ann, annCompany);
    CPPUNIT_ASSERT_EQUAL(annCompany, (*r.data)["id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("owner"), (*r.data)["role"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, (*r.data)["members_count"].asInt());
    r = detail(bob, annCompany);
    CPPUNIT_ASSERT_EQUAL(std::string("member"), (*r.data)["role"].asString());
    const std::string bobCompany = identityOf(bob).companyId;
    for (const std::string& id : {bobCompany, rapport::newId("comp_"), std::string("nonsense")}) {
      const auto e = expectError([&] { detail(ann, id); });
      CPPUNIT_ASSERT_EQUAL(404, e.status());
      CPPUNIT_ASSERT_EQUAL(std::string("Company not found."), std::string(e.what()));
    }
  }

  // decisions §1: sort=field|-field; created_at is the company's, joined_at
  // the membership's (the default, newest first).
  void testUserCompaniesSort() {
    const std::string bob = registerUser("bob@example.com", "Alpha");
    const std::string alpha = identityOf(bob).companyId;
    time_.advanceSeconds(1);
    const std::string token = registerUser("ann@example.com", "bravo");
    time_.advanceSeconds(1);
    authed("POST", "/user/companies", token, Json::object({{"name", "charlie"}}));
    time_.advanceSeconds(1);
    // Ann joins Alpha last, though it is the oldest company.
    db_->exec("INSERT INTO memberships (company_id, user_id, role, created_at) VALUES (?, ?, ?, ?)",
              {alpha, identityOf(token).userId, "member", time_.now()});
    CPPUNIT_ASSERT(names(token) == (std::vector<std::string>{"Alpha", "charlie", "bravo"}));
    CPPUNIT_ASSERT(names(token, "-joined_at") == names(token));
    CPPUNIT_ASSERT(names(token, "joined_at") ==
                   (std::vector<std::string>{"bravo", "charlie", "Alpha"}));
    CPPUNIT_ASSERT(names(token, "created_at") ==
                   (std::vector<std::string>{"Alpha", "bravo", "charlie"}));
    CPPUNIT_ASSERT(names(token, "-created_at") ==
                   (std::vector<std::string>{"charlie", "bravo", "Alpha"}));
    CPPUNIT_ASSERT(names(token, "name") == (std::vector<std::string>{"Alpha", "bravo", "charlie"}));
    CPPUNIT_ASSERT(names(token, "-name") ==
                   (std::vector<std::string>{"charlie", "bravo", "Alpha"}));
    const Response list = authed("GET", "/user/companies", token);
    CPPUNIT_ASSERT_EQUAL(rapport::isoTimestamp(time_.now()),
                         list.data->asArray()[0]["joined_at"].asString());
    for (const std::string bad : {"role", "-id", "", "-", "password"}) {
      const auto e = expectError([&] { names(token, bad); });
      CPPUNIT_ASSERT_EQUAL(422, e.status());
      CPPUNIT_ASSERT_MESSAGE(bad, hasFieldError(e, "sort", ""));
    }
  }

 private:
  // The names of the caller's companies, with ?sort=<sort> when given.
  std::vector<std::string> names(const std::string& token,
                                 const std::optional<std::string>& sort = std::nullopt) {
    Request request = makeRequest(Json(), identityOf(token));
    if (sort) request.query["sort"] = *sort;
    std::vector<std::string> out;
    const Response list = registry_.call("GET", "/user/companies", request);
    for (const Json& item : list.data->asArray()) {
      out.push_back(item["name"].asString());
    }
    return out;
  }

  Response post(const std::string& path, Json body, const std::string& address = "192.0.2.10") {
    return registry_.call("POST", path, makeRequest(std::move(body), std::nullopt, address));
  }

  Response authed(const std::string& method, const std::string& path, const std::string& token,
                  Json body = Json()) {
    Request request = makeRequest(std::move(body), identityOf(token));
    request.headers["Authorization"] = "Bearer " + token;  // refresh reads it itself
    return registry_.call(method, path, request);
  }

  Response detail(const std::string& token, const std::string& id) {
    Request request = makeRequest(Json(), identityOf(token));
    request.pathParams["id"] = id;
    return registry_.call("GET", "/user/companies/{id}", request);
  }

  // What the pipeline does before an authenticated handler runs.
  rapport::Identity identityOf(const std::string& token) {
    const auto identity = tokens_->authenticate(token);
    if (!identity) throw rapport::Error::unauthorized();
    return *identity;
  }

  std::string registerUser(const std::string& email, const std::string& company = "Acme") {
    return (*post("/auth/register", registration(email, company)).data)["token"].asString();
  }

  static Json login(const std::string& email, const std::string& password) {
    return Json::object({{"email", email}, {"password", password}});
  }

  std::int64_t count(const std::string& table) {
    return db_->query("SELECT COUNT(*) AS n FROM " + table).front().i64("n");
  }

  ManualClock time_;
  rapport::host::MemoryAttemptLog attempts_;
  RecordingMailer mailer_;
  FakeRegistry registry_;
  std::unique_ptr<rapport::host::SqlDatabase> db_;
  std::unique_ptr<acc::TokenService> tokens_;
  std::unique_ptr<FakeHost> host_;
  std::unique_ptr<acc::AccountsModule> module_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(AccountsModuleTest);
