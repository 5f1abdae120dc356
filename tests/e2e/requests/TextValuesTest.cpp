// Bytes that are not UTF-8 text, or NUL, in a path or a query: the answer is
// the envelope with 404 (a path id names no record) or 422 (the query
// parameter is named), never a 500, and the server keeps serving.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/common/Api.h"

using namespace rapport::e2e;

namespace {

ServerProcess& crmServer() {
  static ServerProcess server(generousSettings({{"modules.enabled", "contacts,companies"}}));
  return server;
}

}  // namespace

class TextValuesTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(TextValuesTest);
  CPPUNIT_TEST(testPathIdsAre404);
  CPPUNIT_TEST(testQueryValuesAre422NamingTheParameter);
  CPPUNIT_TEST(testValidTextStillMatches);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testPathIdsAre404() {
    HttpClient client(crmServer().port());
    const Account account = registerUser(client, "text-path");
    for (const char* path :
         {"/v1/crm/contacts/cont_%ff", "/v1/crm/contacts/cont_%c3%28", "/v1/crm/contacts/cont_%00",
          "/v1/crm/companies/comp_%fe%ff", "/v1/crm/companies/comp_%ed%a0%80/contacts"}) {
      const HttpResult result = client.get(path, bearer(account.token));
      E2E_ASSERT_ERROR(404, result);
      E2E_ASSERT_COMMON_HEADERS(result);
    }
    const HttpResult patch = client.patch("/v1/crm/contacts/cont_%ff",
                                          Json::object({{"name", "x"}}), bearer(account.token));
    E2E_ASSERT_ERROR(404, patch);
    E2E_ASSERT_ERROR(404, client.del("/v1/crm/companies/comp_%ff", bearer(account.token)));
  }

  void testQueryValuesAre422NamingTheParameter() {
    HttpClient client(crmServer().port());
    const Account account = registerUser(client, "text-query");
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"/v1/crm/contacts?search=%ff%fe", "search"},
        {"/v1/crm/contacts?tag=%ff", "tag"},
        {"/v1/crm/contacts?owner_id=user_%ff", "owner_id"},
        {"/v1/crm/contacts?search=a%00b", "search"},
        {"/v1/crm/companies?industry=%c3%28", "industry"},
        {"/v1/crm/companies?search=%ed%a0%80", "search"}};
    for (const auto& [path, parameter] : cases) {
      const Json body = E2E_ASSERT_ERROR(422, client.get(path, bearer(account.token)));
      CPPUNIT_ASSERT_MESSAGE(path + " " + body.dump(), body["errors"].contains(parameter));
    }
    // The server is unharmed.
    E2E_ASSERT_DATA(200, client.get("/v1/crm/contacts", bearer(account.token)));
  }

  void testValidTextStillMatches() {
    HttpClient client(crmServer().port());
    const Account account = registerUser(client, "text-valid");
    const Json created =
        E2E_ASSERT_DATA(201, client.post("/v1/crm/contacts",
                                         Json::object({{"name", "J\xC3\xBCrgen \xC3\x96zil"},
                                                       {"tags", Json::Array{"\xE2\x9C\x93 ok"}}}),
                                         bearer(account.token)));
    const HttpResult found =
        client.get("/v1/crm/contacts?search=%C3%BCrgen&tag=%E2%9C%93%20ok", bearer(account.token));
    E2E_ASSERT_DATA(200, found);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(found), std::string(created["id"].asString()),
                                 found.json()["data"].asArray().at(0)["id"].asString());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TextValuesTest);
