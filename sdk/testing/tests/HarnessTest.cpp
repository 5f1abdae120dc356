// unit.harness: the in-process harness itself (rapport/testing.h), on both
// engines: users and companies made through the API, the host's pipeline
// (authentication, tenancy, errors, rate limits), the event log, module
// dependencies, the loader's refusals, and the database gone at the end.
#include <Poco/Data/PostgreSQL/Connector.h>
#include <Poco/Data/Session.h>
#include <cppunit/extensions/HelperMacros.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "rapport/ids.h"
#include "rapport/testing.h"
#include "support/TestEnv.h"

namespace {

using rapport::Json;
using rapport::Role;
using rapport::testing::Client;
using rapport::testing::Harness;
using rapport::testing::HarnessOptions;
using rapport::testing::Reply;

Json contactBody(const std::string& name) {
  return Json::object({{"name", name}});
}

// pg_database rows named `name`, read on the test server (not through the harness).
std::int64_t postgresDatabasesNamed(std::string name) {
  Poco::Data::PostgreSQL::Connector::registerConnector();
  Poco::Data::Session session(
      "postgresql", rapport::test::pocoPostgresConnectionString(rapport::test::postgresAdminUrl()));
  std::int64_t count = -1;
  session << "SELECT COUNT(*) FROM pg_database WHERE datname = $1", Poco::Data::Keywords::use(name),
      Poco::Data::Keywords::into(count), Poco::Data::Keywords::now;
  return count;
}

}  // namespace

class HarnessTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(HarnessTest);
  CPPUNIT_TEST(signUpOwnsANewCompany);
  CPPUNIT_TEST(joinAddsAMemberWithItsRole);
  CPPUNIT_TEST(anonymousGetsThe401);
  CPPUNIT_TEST(anotherCompanysRecordIs404);
  CPPUNIT_TEST(invalidBodyGetsThe422Envelope);
  CPPUNIT_TEST(rateLimitHeadersAndSettingsApply);
  CPPUNIT_TEST(eventsListTheCompanysLog);
  CPPUNIT_TEST(dependenciesAreLoaded);
  CPPUNIT_TEST(optionalModulesOnlyWhenListed);
  CPPUNIT_TEST(unknownModuleIsRefusedWithTheHostsReason);
  CPPUNIT_TEST(refusedSettingIsARuntimeError);
  CPPUNIT_TEST(moduleExceptionIsThe500);
  CPPUNIT_TEST(moduleThatFailsToSetUpIsRefused);
  CPPUNIT_TEST(databaseIsGoneAfterTheHarness);
  CPPUNIT_TEST(dialectFollowsTheEngine);
  CPPUNIT_TEST_SUITE_END();

 public:
  void signUpOwnsANewCompany() {
    Harness harness;
    Client alice = harness.signUp();
    Client bob = harness.signUp();
    CPPUNIT_ASSERT(alice.email() != bob.email());
    CPPUNIT_ASSERT(alice.companyId() != bob.companyId());
    CPPUNIT_ASSERT(rapport::hasPrefix(alice.userId(), "user_"));
    CPPUNIT_ASSERT(rapport::hasPrefix(alice.companyId(), "comp_"));
    CPPUNIT_ASSERT(Role::Owner == alice.role());
    Reply me = alice.get("/v1/auth/me");
    CPPUNIT_ASSERT_EQUAL(200, me.status);
    CPPUNIT_ASSERT_EQUAL(alice.userId(), me.data()["id"].asString());
    CPPUNIT_ASSERT_EQUAL(alice.companyId(), me.data()["company_id"].asString());
    CPPUNIT_ASSERT_EQUAL(alice.email(), me.data()["email"].asString());
  }

  void joinAddsAMemberWithItsRole() {
    Harness harness;
    Client owner = harness.signUp();
    Client admin = harness.join(owner, Role::Admin);
    Client member = harness.join(owner, Role::Member);
    CPPUNIT_ASSERT_EQUAL(owner.companyId(), admin.companyId());
    CPPUNIT_ASSERT_EQUAL(owner.companyId(), member.companyId());
    CPPUNIT_ASSERT(Role::Member == member.role());
    CPPUNIT_ASSERT_EQUAL(owner.companyId(),
                         member.get("/v1/auth/me").data()["company_id"].asString());
    Reply members = member.get("/v1/company/members");
    CPPUNIT_ASSERT_EQUAL(200, members.status);
    CPPUNIT_ASSERT_EQUAL(std::size_t(3), members.data().size());
    for (const Json& m : members.data().asArray()) {
      const std::string& id = m["user_id"].asString();
      const std::string expected = id == owner.userId()   ? "owner"
                                   : id == admin.userId() ? "admin"
                                                          : "member";
      CPPUNIT_ASSERT_EQUAL(expected, m["role"].asString());
    }
    // The role is the host's: a member may not add members (owner or admin only).
    Reply refused = member.post("/v1/company/members",
                                Json::object({{"email", admin.email()}, {"role", "member"}}));
    CPPUNIT_ASSERT_EQUAL(403, refused.status);
    // The harness's own steps fail loudly, naming the step.
    try {
      harness.join(member, Role::Member);
      CPPUNIT_FAIL("a member added a member");
    } catch (const std::runtime_error& e) {
      CPPUNIT_ASSERT_EQUAL(std::string("harness: POST /v1/company/members answered 403"),
                           std::string(e.what()).substr(0, 46));
    }
  }

  void anonymousGetsThe401() {
    Harness harness;
    Reply reply = harness.anonymous().get("/v1/auth/me");
    CPPUNIT_ASSERT_EQUAL(401, reply.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Not authenticated."), reply.message());
    CPPUNIT_ASSERT(harness.anonymous().token().empty());
    // Public routes answer without a token.
    CPPUNIT_ASSERT_EQUAL(200, harness.anonymous().get("/healthz").status);
  }

  void anotherCompanysRecordIs404() {
    Harness harness({.modules = {"contacts"}});
    Client alice = harness.signUp();
    Client mallory = harness.signUp();
    Reply made = alice.post("/v1/crm/contacts", contactBody("Ada"));
    CPPUNIT_ASSERT_EQUAL(201, made.status);
    const std::string path = "/v1/crm/contacts/" + made.data()["id"].asString();
    CPPUNIT_ASSERT_EQUAL(200, alice.get(path).status);
    Reply hidden = mallory.get(path);
    CPPUNIT_ASSERT_EQUAL(404, hidden.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Contact not found."), hidden.message());
    CPPUNIT_ASSERT_EQUAL(404, mallory.del(path).status);
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), mallory.get("/v1/crm/contacts").data().size());
  }

  void invalidBodyGetsThe422Envelope() {
    Harness harness({.modules = {"contacts"}});
    Client alice = harness.signUp();
    Reply reply = alice.post("/v1/crm/contacts", Json::object({{"email", "not-an-email"}}));
    CPPUNIT_ASSERT_EQUAL(422, reply.status);
    CPPUNIT_ASSERT_EQUAL(std::string("application/json; charset=utf-8"),
                         reply.header("content-type").value_or(""));
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), reply.fieldErrors("name").size());
    CPPUNIT_ASSERT_EQUAL(std::string("The name field is required."), reply.fieldErrors("name")[0]);
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), reply.fieldErrors("email").size());
    CPPUNIT_ASSERT(reply.fieldErrors("phone").empty());
    CPPUNIT_ASSERT(!reply.message().empty());
    // A body that is not JSON reaches the pipeline as sent.
    Reply malformed = alice.request("POST", "/v1/crm/contacts", std::string("{not json"),
                                    {{"Content-Type", "application/json"}});
    CPPUNIT_ASSERT_EQUAL(400, malformed.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Malformed request: the body is not valid JSON."),
                         malformed.message());
  }

  void rateLimitHeadersAndSettingsApply() {
    {
      Harness harness;
      Reply reply = harness.signUp().get("/v1/auth/me");
      CPPUNIT_ASSERT_EQUAL(std::string("1000000"), reply.header("X-RateLimit-Limit").value_or(""));
      CPPUNIT_ASSERT(reply.header("x-ratelimit-remaining").has_value());
      CPPUNIT_ASSERT(reply.header("X-RateLimit-Reset").has_value());
      CPPUNIT_ASSERT(reply.header("X-Request-Id").has_value());
    }
    // HarnessOptions::settings override the harness's defaults (per token:
    // registering counted on the client address, not on the token).
    Harness strict({.settings = {{"ratelimit.requests", "2"}}});
    Client alice = strict.signUp();
    CPPUNIT_ASSERT_EQUAL(200, alice.get("/v1/auth/me").status);
    CPPUNIT_ASSERT_EQUAL(200, alice.get("/v1/auth/me").status);
    Reply limited = alice.get("/v1/auth/me");
    CPPUNIT_ASSERT_EQUAL(429, limited.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Too many requests."), limited.message());
    CPPUNIT_ASSERT(limited.header("Retry-After").has_value());
    CPPUNIT_ASSERT_EQUAL(std::string("0"), limited.header("X-RateLimit-Remaining").value_or(""));
  }

  void eventsListTheCompanysLog() {
    Harness harness({.modules = {"contacts"}});
    Client alice = harness.signUp();
    Client bob = harness.signUp();
    CPPUNIT_ASSERT(harness.events(alice).empty());
    Reply made = alice.post("/v1/crm/contacts", contactBody("Ada"));
    const std::string id = made.data()["id"].asString();
    CPPUNIT_ASSERT_EQUAL(200, alice.patch("/v1/crm/contacts/" + id, contactBody("Ada L")).status);
    std::vector<Json> events = harness.events(alice);
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), events.size());
    CPPUNIT_ASSERT_EQUAL(std::string("crm.contact.created"), events[0]["type"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("crm.contact.updated"), events[1]["type"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("contacts"), events[0]["module"].asString());
    CPPUNIT_ASSERT_EQUAL(id, events[0]["data"]["id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), events[0]["sequence"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), events[1]["sequence"].asInt());
    CPPUNIT_ASSERT_EQUAL(made.header("X-Request-Id").value_or("?"),
                         events[0]["request_id"].asString());
    CPPUNIT_ASSERT(!events[0]["occurred_at"].asString().empty());
    CPPUNIT_ASSERT(harness.events(bob).empty());
  }

  void dependenciesAreLoaded() {
    // deals requires pipelines: asking for deals loads both.
    Harness harness({.modules = {"deals"}});
    Client alice = harness.signUp();
    CPPUNIT_ASSERT_EQUAL(200, alice.get("/v1/crm/deals").status);
    CPPUNIT_ASSERT_EQUAL(200, alice.get("/v1/crm/pipelines").status);
  }

  void optionalModulesOnlyWhenListed() {
    // contacts uses companies when enabled; it is not loaded for it.
    Harness alone({.modules = {"contacts"}});
    CPPUNIT_ASSERT_EQUAL(404, alone.signUp().get("/v1/crm/companies").status);
    Harness both({.modules = {"contacts", "companies"}});
    CPPUNIT_ASSERT_EQUAL(200, both.signUp().get("/v1/crm/companies").status);
  }

  void unknownModuleIsRefusedWithTheHostsReason() {
    const std::filesystem::path dir = rapport::test::tempDirectory("harness-dirs");
    try {
      Harness harness({.modules = {"nosuch"}, .moduleDirs = {dir}});
      CPPUNIT_FAIL("an unknown module was accepted");
    } catch (const std::runtime_error& e) {
      CPPUNIT_ASSERT_EQUAL("module 'nosuch' not found: no rapport_nosuch.so in " + dir.string(),
                           std::string(e.what()));
    }
  }

  void refusedSettingIsARuntimeError() {
    try {
      Harness harness({.settings = {{"auth.argon2.iterations", "1"}}});
      CPPUNIT_FAIL("an argon2 cost under the minimum was accepted");
    } catch (const std::runtime_error& e) {
      CPPUNIT_ASSERT(std::string(e.what()).find("auth.argon2.iterations") != std::string::npos);
    }
  }

  void moduleExceptionIsThe500() {
    // The probe fixture's /probe/boom throws a std::runtime_error.
    Harness harness({.modules = {"probe"}});
    Reply reply = harness.signUp().get("/v1/probe/boom");
    CPPUNIT_ASSERT_EQUAL(500, reply.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Internal error."), reply.message());
    CPPUNIT_ASSERT(reply.text.find("secret detail") == std::string::npos);
  }

  void moduleThatFailsToSetUpIsRefused() {
    // setup_throws requires probe (loaded for it), then throws in setup().
    try {
      Harness harness({.modules = {"setup_throws"}});
      CPPUNIT_FAIL("a module whose setup throws was accepted");
    } catch (const std::runtime_error& e) {
      CPPUNIT_ASSERT_EQUAL(
          std::string("module 'setup_throws' failed to set up: setup_throws cannot set up"),
          std::string(e.what()));
    }
  }

  void databaseIsGoneAfterTheHarness() {
    auto harness = std::make_unique<Harness>();
    if (harness->dialect() == rapport::Dialect::PostgreSQL) {
      const std::string name =
          harness->database().query("SELECT current_database() AS name").front().str("name");
      CPPUNIT_ASSERT(name.rfind("rapport_h_", 0) == 0);
      CPPUNIT_ASSERT_EQUAL(std::int64_t(1), postgresDatabasesNamed(name));
      harness.reset();
      CPPUNIT_ASSERT_EQUAL(std::int64_t(0), postgresDatabasesNamed(name));
    } else {
      const std::string file =
          harness->database().query("PRAGMA database_list").front().str("file");
      CPPUNIT_ASSERT(std::filesystem::exists(file));
      harness.reset();
      CPPUNIT_ASSERT(!std::filesystem::exists(file));
      CPPUNIT_ASSERT(!std::filesystem::exists(std::filesystem::path(file).parent_path()));
    }
  }

  void dialectFollowsTheEngine() {
    Harness harness;
    CPPUNIT_ASSERT(harness.dialect() == (rapport::test::onPostgres() ? rapport::Dialect::PostgreSQL
                                                                     : rapport::Dialect::SQLite));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(HarnessTest);
