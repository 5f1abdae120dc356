// GET /v1/versions, deprecation headers and sunset (API Versioning;
// decisions §10).
#include <cppunit/extensions/HelperMacros.h>

#include <memory>

#include "e2e/common/Api.h"
#include "e2e/common/Timely.h"
#include "rapport/time.h"

using namespace rapport::e2e;

namespace {

const char* kLink = "https://docs.example.com/migrate/me";
const char* kSuccessor = "https://docs.example.com/v2/auth/me";

// /v1/auth/me is deprecated (sunset far ahead); /v1/user/companies is past
// its sunset.
ServerProcess& deprecationServer() {
  static ServerProcess server(generousSettings({
      {"deprecations", "old, gone"},
      {"deprecations.old.prefix", "/v1/auth/me"},
      {"deprecations.old.deprecated_at", "2020-01-01"},
      {"deprecations.old.sunset_at", "2099-12-31"},
      {"deprecations.old.link", kLink},
      {"deprecations.old.successor", kSuccessor},
      {"deprecations.gone.prefix", "/v1/user/companies"},
      {"deprecations.gone.deprecated_at", "2020-01-01"},
      {"deprecations.gone.sunset_at", "2021-01-01"},
  }));
  return server;
}

const Json* findVersion(const Json& list, const std::string& name) {
  for (const auto& item : list.asArray()) {
    if (item["version"].isString() && item["version"].asString() == name) return &item;
  }
  return nullptr;
}

void assertNoDeprecationHeaders(const HttpResult& result) {
  for (const char* name : {"Deprecation", "Sunset", "Link"}) {
    CPPUNIT_ASSERT_MESSAGE(std::string(name) + " on an undeprecated path: " + describe(result),
                           !result.hasHeader(name));
  }
}

}  // namespace

class VersionsTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(VersionsTest);
  CPPUNIT_TEST(testVersionsListIsPublic);
  CPPUNIT_TEST(testDeprecatedPrefixCarriesHeaders);
  CPPUNIT_TEST(testOtherPathsCarryNoDeprecationHeaders);
  CPPUNIT_TEST(testPrefixPastSunsetAnswers410);
  CPPUNIT_TEST(testSunsetArrivesWhileServing);
  CPPUNIT_TEST(testSunsetVersionAnswers410Everywhere);
  CPPUNIT_TEST(testDeprecatedVersionIsListedAndAnnounced);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testVersionsListIsPublic() {
    HttpClient client(deprecationServer().port());
    const HttpResult result = client.get("/v1/versions");
    const Json data = E2E_ASSERT_DATA(200, result);
    E2E_ASSERT_COMMON_HEADERS(result);
    CPPUNIT_ASSERT_MESSAGE(describe(result), data.isArray() && data.size() >= 1);
    for (const auto& item : data.asArray()) {
      for (const char* key :
           {"version", "status", "released_at", "deprecated_at", "sunset_at", "docs_url"}) {
        CPPUNIT_ASSERT_MESSAGE(std::string(key) + " missing: " + item.dump(), item.contains(key));
      }
      const std::string status = item["status"].asString();
      CPPUNIT_ASSERT_MESSAGE(item.dump(),
                             status == "active" || status == "deprecated" || status == "sunset");
      CPPUNIT_ASSERT_MESSAGE(item.dump(),
                             item["docs_url"].isString() && !item["docs_url"].asString().empty());
      CPPUNIT_ASSERT_MESSAGE(item.dump(), item["released_at"].isString());
    }
    const Json* v1 = findVersion(data, "v1");
    CPPUNIT_ASSERT_MESSAGE(describe(result), v1 != nullptr);
    CPPUNIT_ASSERT_EQUAL(std::string("active"), (*v1)["status"].asString());
    CPPUNIT_ASSERT_MESSAGE(v1->dump(), (*v1)["deprecated_at"].isNull());
    CPPUNIT_ASSERT_MESSAGE(v1->dump(), (*v1)["sunset_at"].isNull());
    assertNoDeprecationHeaders(result);

    // The version comes from the path alone, never from a header or the query.
    const HttpResult headed =
        client.get("/v1/versions?version=v2", {{"Accept-Version", "v2"}, {"API-Version", "v2"}});
    CPPUNIT_ASSERT_EQUAL(data.dump(), E2E_ASSERT_DATA(200, headed).dump());
  }

  void testDeprecatedPrefixCarriesHeaders() {
    HttpClient client(deprecationServer().port());
    const Account account = registerUser(client, "deprecated");
    const HttpResult result = client.get("/v1/auth/me", bearer(account.token));
    // Status and body unchanged.
    const Json me = E2E_ASSERT_DATA(200, result);
    CPPUNIT_ASSERT_EQUAL(account.userId, me["id"].asString());
    CPPUNIT_ASSERT_EQUAL(account.email, me["email"].asString());
    CPPUNIT_ASSERT_EQUAL(account.companyId, me["company_id"].asString());
    E2E_ASSERT_COMMON_HEADERS(result);

    CPPUNIT_ASSERT_MESSAGE(describe(result),
                           result.header("Deprecation").rfind("2020-01-01", 0) == 0);
    CPPUNIT_ASSERT_MESSAGE(describe(result), result.header("Sunset").rfind("2099-12-31", 0) == 0);
    const std::string link = result.header("Link");
    bool deprecation = false, successor = false;
    for (const auto& part : splitComma(link)) {
      if (part.find("<" + std::string(kLink) + ">") == 0 &&
          part.find("rel=\"deprecation\"") != std::string::npos) {
        deprecation = true;
      }
      if (part.find("<" + std::string(kSuccessor) + ">") == 0 &&
          part.find("rel=\"successor-version\"") != std::string::npos) {
        successor = true;
      }
    }
    CPPUNIT_ASSERT_MESSAGE("Link rel=deprecation: " + describe(result), deprecation);
    CPPUNIT_ASSERT_MESSAGE("Link rel=successor-version: " + describe(result), successor);

    // Every answer of the resource carries them, its errors included.
    const HttpResult unauthenticated = client.get("/v1/auth/me");
    E2E_ASSERT_ERROR(401, unauthenticated);
    CPPUNIT_ASSERT_MESSAGE(describe(unauthenticated), unauthenticated.hasHeader("Deprecation"));
    CPPUNIT_ASSERT_MESSAGE(describe(unauthenticated), unauthenticated.hasHeader("Sunset"));
  }

  void testOtherPathsCarryNoDeprecationHeaders() {
    HttpClient client(deprecationServer().port());
    const Account account = registerUser(client, "current");
    assertNoDeprecationHeaders(client.get("/v1/versions"));
    assertNoDeprecationHeaders(client.post("/v1/auth/login", Json::object()));
    assertNoDeprecationHeaders(client.get("/v1/errors/sample?status=404", bearer(account.token)));
    assertNoDeprecationHeaders(client.get("/v1/nope"));
    assertNoDeprecationHeaders(client.get("/healthz"));
  }

  void testPrefixPastSunsetAnswers410() {
    HttpClient client(deprecationServer().port());
    const Account account = registerUser(client, "sunset");
    for (const HttpResult& result :
         {client.get("/v1/user/companies", bearer(account.token)),
          client.post("/v1/user/companies", Json::object({{"name", "Too Late"}}),
                      bearer(account.token)),
          client.get("/v1/user/companies/" + account.companyId, bearer(account.token))}) {
      E2E_ASSERT_ERROR(410, result);
      CPPUNIT_ASSERT_EQUAL(std::string("Gone"), result.reason);
      E2E_ASSERT_COMMON_HEADERS(result);
    }
    // The rest of the version answers as before.
    E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(account.token)));
  }

  // API Versioning 7: the resource works until the Sunset instant, and
  // answers 410 from then on, without a restart. The sunset is set a few
  // seconds ahead at start-up; when the server started too slowly to answer
  // before it, the attempt is made again with a sunset twice as far.
  void testSunsetArrivesWhileServing() {
    std::unique_ptr<ServerProcess> server;
    std::int64_t sunset = 0;
    std::int64_t lead = 0;
    retryUntilTimely("the resource before its sunset", 3, [&](int attempt) {
      lead = std::int64_t{3} << attempt;  // 3, 6, 12 s
      sunset = unixNow() + lead;
      const std::string instant = rapport::isoTimestamp(sunset * 1'000'000);
      server.reset();
      server = std::make_unique<ServerProcess>(
          generousSettings({{"deprecations", "soon"},
                            {"deprecations.soon.prefix", "/v1/versions"},
                            {"deprecations.soon.deprecated_at", "2020-01-01"},
                            {"deprecations.soon.sunset_at", instant}}));
      const HttpResult before = HttpClient(server->port()).get("/v1/versions");
      if (unixNow() >= sunset) return false;
      E2E_ASSERT_DATA(200, before);
      CPPUNIT_ASSERT_MESSAGE(describe(before), before.hasHeader("Sunset"));
      return true;
    });
    HttpClient client(server->port());
    const bool gone = waitUntil([&] { return client.get("/v1/versions").status == 410; },
                                std::chrono::seconds(lead + 3));
    CPPUNIT_ASSERT_MESSAGE("still answering after its sunset", gone);
    CPPUNIT_ASSERT_MESSAGE("410 before the sunset instant", unixNow() >= sunset);
    E2E_ASSERT_ERROR(410, client.get("/v1/versions"));
  }

  void testSunsetVersionAnswers410Everywhere() {
    ServerProcess server(generousSettings({{"versions.v1.status", "sunset"}}));
    HttpClient client(server.port());
    const Json body = Json::object({{"name", "Late"},
                                    {"email", uniqueEmail("late")},
                                    {"password", "correct horse"},
                                    {"password_confirmation", "correct horse"},
                                    {"company_name", "Late Ltd"}});
    for (const HttpResult& result :
         {client.get("/v1/versions"), client.post("/v1/auth/register", body),
          client.post("/v1/auth/login", Json::object()), client.get("/v1/auth/me"),
          client.get("/v1/user/companies"), client.get("/v1/nope")}) {
      E2E_ASSERT_ERROR(410, result);
      E2E_ASSERT_COMMON_HEADERS(result);
    }
    // Outside the version: the probes still answer.
    E2E_ASSERT_STATUS(200, client.get("/healthz"));
  }

  void testDeprecatedVersionIsListedAndAnnounced() {
    ServerProcess server(generousSettings({
        {"versions", "v1, v2"},
        {"versions.v1.status", "deprecated"},
        {"versions.v1.deprecated_at", "2020-01-01"},
        {"versions.v1.sunset_at", "2099-12-31"},
        {"versions.v2.status", "active"},
        {"versions.v2.released_at", "2026-06-01"},
        {"versions.v2.docs_url", "https://docs.example.com/v2"},
    }));
    HttpClient client(server.port());
    const HttpResult result = client.get("/v1/versions");
    const Json data = E2E_ASSERT_DATA(200, result);
    const Json* v1 = findVersion(data, "v1");
    const Json* v2 = findVersion(data, "v2");
    CPPUNIT_ASSERT_MESSAGE(describe(result), v1 && v2);
    CPPUNIT_ASSERT_EQUAL(std::string("deprecated"), (*v1)["status"].asString());
    CPPUNIT_ASSERT_MESSAGE(v1->dump(),
                           (*v1)["deprecated_at"].asString().rfind("2020-01-01", 0) == 0);
    CPPUNIT_ASSERT_MESSAGE(v1->dump(), (*v1)["sunset_at"].asString().rfind("2099-12-31", 0) == 0);
    CPPUNIT_ASSERT_EQUAL(std::string("active"), (*v2)["status"].asString());
    CPPUNIT_ASSERT_MESSAGE(v2->dump(), (*v2)["released_at"].asString().rfind("2026-06-01", 0) == 0);
    CPPUNIT_ASSERT_EQUAL(std::string("https://docs.example.com/v2"), (*v2)["docs_url"].asString());

    // A deprecated version works and says so on every answer.
    CPPUNIT_ASSERT_MESSAGE(describe(result),
                           result.header("Deprecation").rfind("2020-01-01", 0) == 0);
    CPPUNIT_ASSERT_MESSAGE(describe(result), result.header("Sunset").rfind("2099-12-31", 0) == 0);
    const Account account = registerUser(client, "oldversion");
    const HttpResult me = client.get("/v1/auth/me", bearer(account.token));
    E2E_ASSERT_DATA(200, me);
    CPPUNIT_ASSERT_MESSAGE(describe(me), me.hasHeader("Deprecation") && me.hasHeader("Sunset"));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(VersionsTest);
