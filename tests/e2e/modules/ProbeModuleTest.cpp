// A module loaded by rapportd serves inside the host's auth, tenancy, errors
// and rate limits, and its events land in the host's event log in the same
// database (decisions §11). The module is the probe fixture
// (tests/fixtures/modules/probe).
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/common/Api.h"
#include "rapport/ids.h"

using namespace rapport::e2e;

namespace {

ServerProcess& probeServer() {
  static ServerProcess server(probeSettings());
  return server;
}

Json createNote(HttpClient& client, const std::string& token, const std::string& body) {
  return E2E_ASSERT_DATA(
      201, client.post("/v1/probe/notes", Json::object({{"body", body}}), bearer(token)));
}

}  // namespace

class ProbeModuleTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ProbeModuleTest);
  CPPUNIT_TEST(testPublicRoute);
  CPPUNIT_TEST(testProtectedRoutesNeedToken);
  CPPUNIT_TEST(testNoteIsValidated);
  CPPUNIT_TEST(testCreateThenRead);
  CPPUNIT_TEST(testOtherCompanyGets404);
  CPPUNIT_TEST(testEventIsWrittenToTheEventLog);
  CPPUNIT_TEST(testRoleRestrictedRouteAllowsOwner);
  CPPUNIT_TEST(testRoleRestrictedRouteRefusesMember);
  CPPUNIT_TEST(testModuleRoutesShareTheRouter);
  CPPUNIT_TEST(testDisabledModuleRoutesAre404);
  CPPUNIT_TEST(testDependentModuleLoadsAfterItsDependency);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testPublicRoute() {
    HttpClient client(probeServer().port());
    const HttpResult result = client.get("/v1/probe/ping");
    const Json data = E2E_ASSERT_DATA(200, result);
    CPPUNIT_ASSERT_EQUAL(std::string("{\"pong\":true}"), data.dump());
    E2E_ASSERT_COMMON_HEADERS(result);
  }

  void testProtectedRoutesNeedToken() {
    HttpClient client(probeServer().port());
    E2E_ASSERT_ERROR(401, client.post("/v1/probe/notes", Json::object({{"body", "x"}})));
    E2E_ASSERT_ERROR(401, client.get("/v1/probe/notes/note_x"));
    E2E_ASSERT_ERROR(401, client.get("/v1/probe/admin"));
    E2E_ASSERT_ERROR(401, client.get("/v1/probe/notes/note_x", bearer("bogus")));
  }

  void testNoteIsValidated() {
    HttpClient client(probeServer().port());
    const Account account = registerUser(client, "validate");
    for (const Json& body :
         {Json::object(), Json::object({{"body", 5}}), Json::object({{"body", Json()}}),
          Json::object({{"body", std::string(10001, 'x')}})}) {
      const HttpResult result = client.post("/v1/probe/notes", body, bearer(account.token));
      const Json error = E2E_ASSERT_ERROR(422, result);
      CPPUNIT_ASSERT_MESSAGE(describe(result), error["errors"].contains("body"));
    }
    E2E_ASSERT_ERROR(400, client.send("POST", "/v1/probe/notes", std::string("{\"body\":"),
                                      bearer(account.token)));
    E2E_ASSERT_ERROR(400, client.send("POST", "/v1/probe/notes", std::string("[\"body\"]"),
                                      bearer(account.token)));
  }

  void testCreateThenRead() {
    HttpClient client(probeServer().port());
    const Account account = registerUser(client, "notes");
    const HttpResult created = client.post(
        "/v1/probe/notes", Json::object({{"body", "  hello probe  "}}), bearer(account.token));
    const Json note = E2E_ASSERT_DATA(201, created);
    CPPUNIT_ASSERT_EQUAL(std::string("Created"), created.reason);
    E2E_ASSERT_COMMON_HEADERS(created);
    CPPUNIT_ASSERT_MESSAGE(note.dump(), rapport::hasPrefix(note["id"].asString(), "note_"));
    CPPUNIT_ASSERT_EQUAL(std::string("hello probe"), note["body"].asString());
    E2E_ASSERT_ISO_UTC(note["created_at"]);

    const HttpResult read =
        client.get("/v1/probe/notes/" + note["id"].asString(), bearer(account.token));
    CPPUNIT_ASSERT_EQUAL(note.dump(), E2E_ASSERT_DATA(200, read).dump());
    E2E_ASSERT_ERROR(404, client.get("/v1/probe/notes/note_missing", bearer(account.token)));
  }

  void testOtherCompanyGets404() {
    HttpClient client(probeServer().port());
    const Account alice = registerUser(client, "alice");
    const Account bob = registerUser(client, "bob");
    const std::string id = createNote(client, alice.token, "alice only")["id"].asString();
    E2E_ASSERT_ERROR(404, client.get("/v1/probe/notes/" + id, bearer(bob.token)));

    // The same user in another company does not see it either: the token decides.
    const std::string second = createCompany(client, alice.token, "Alice Elsewhere");
    const std::string elsewhere = switchContext(client, alice.token, second);
    E2E_ASSERT_ERROR(404, client.get("/v1/probe/notes/" + id, bearer(elsewhere)));
    E2E_ASSERT_DATA(200, client.get("/v1/probe/notes/" + id, bearer(alice.token)));
  }

  // Event written in the handler's transaction, in the same database
  // (decisions §8: data is the record as GET returns it).
  void testEventIsWrittenToTheEventLog() {
    HttpClient client(probeServer().port());
    const Account account = registerUser(client, "events");
    const Json note = createNote(client, account.token, "an event, please");
    const std::string id = note["id"].asString();

    const auto rows = queryDatabase(
        probeServer().databaseUrl(),
        "SELECT id, company_id, type, data FROM events WHERE type = 'probe.note.created' AND "
        "company_id = " +
            sqlQuote(account.companyId));
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), rows.size());
    const auto& row = rows.front();
    CPPUNIT_ASSERT_MESSAGE(row[0], rapport::hasPrefix(row[0], "evt_"));
    CPPUNIT_ASSERT_EQUAL(account.companyId, row[1]);
    CPPUNIT_ASSERT_EQUAL(std::string("probe.note.created"), row[2]);
    const Json data = Json::parse(row[3]);
    CPPUNIT_ASSERT_EQUAL(note.dump(), data.dump());
    const Json read =
        E2E_ASSERT_DATA(200, client.get("/v1/probe/notes/" + id, bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(read.dump(), data.dump());

    // A refused note leaves no event behind.
    const Json refused = E2E_ASSERT_ERROR(
        422, client.post("/v1/probe/notes", Json::object(), bearer(account.token)));
    CPPUNIT_ASSERT_MESSAGE(refused.dump(), refused["errors"].contains("body"));
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), queryDatabase(probeServer().databaseUrl(),
                                                       "SELECT id FROM events WHERE company_id = " +
                                                           sqlQuote(account.companyId))
                                             .size());
  }

  void testRoleRestrictedRouteAllowsOwner() {
    HttpClient client(probeServer().port());
    const Account owner = registerUser(client, "owner");
    const Json data = E2E_ASSERT_DATA(200, client.get("/v1/probe/admin", bearer(owner.token)));
    CPPUNIT_ASSERT_EQUAL(std::string("{\"ok\":true}"), data.dump());
  }

  // A plain member (decisions §2: POST /company/members adds one) is refused
  // the owner/admin route with 403, while member routes work.
  void testRoleRestrictedRouteRefusesMember() {
    HttpClient client(probeServer().port());
    const Account owner = registerUser(client, "boss");
    const Account member = registerUser(client, "staff");
    const HttpResult added = client.post(
        "/v1/company/members", Json::object({{"email", member.email}, {"role", "member"}}),
        bearer(owner.token));
    // Adding a member creates a membership: 201 (200 accepted too).
    if (added.status != 200) E2E_ASSERT_STATUS(201, added);
    const std::string memberToken = switchContext(client, member.token, owner.companyId);
    const HttpResult refused = client.get("/v1/probe/admin", bearer(memberToken));
    E2E_ASSERT_ERROR(403, refused);
    CPPUNIT_ASSERT_EQUAL(std::string("Forbidden"), refused.reason);
    const Json note = createNote(client, memberToken, "members may write");
    E2E_ASSERT_DATA(200,
                    client.get("/v1/probe/notes/" + note["id"].asString(), bearer(owner.token)));
  }

  void testModuleRoutesShareTheRouter() {
    HttpClient client(probeServer().port());
    const HttpResult result = client.del("/v1/probe/notes");
    E2E_ASSERT_ERROR(405, result);
    CPPUNIT_ASSERT_MESSAGE(describe(result), contains(splitComma(result.header("Allow")), "POST"));
    E2E_ASSERT_ERROR(404, client.get("/v1/probe/nothing"));
  }

  void testDisabledModuleRoutesAre404() {
    ServerProcess server(
        generousSettings({{"modules.dir", testModulesDir()}, {"modules.enabled", ""}}));
    HttpClient client(server.port());
    E2E_ASSERT_ERROR(404, client.get("/v1/probe/ping"));
    const Account account = registerUser(client, "disabled");
    E2E_ASSERT_ERROR(
        404, client.post("/v1/probe/notes", Json::object({{"body", "x"}}), bearer(account.token)));
    E2E_ASSERT_ERROR(404, client.get("/v1/probe/admin", bearer(account.token)));
  }

  void testDependentModuleLoadsAfterItsDependency() {
    // Listed before its dependency: the loader orders them.
    ServerProcess server(generousSettings(
        {{"modules.dir", testModulesDir()}, {"modules.enabled", "probe_dependent, probe"}}));
    HttpClient client(server.port());
    E2E_ASSERT_DATA(200, client.get("/v1/probe-dependent/ping"));
    E2E_ASSERT_DATA(200, client.get("/v1/probe/ping"));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ProbeModuleTest);
