// The statement deadline of a record list (decisions §13 "Cost";
// database.query_timeout_ms): a filter that no index serves (`contains` on
// notes, which is not part of the search index, 40 times under `or`) over a
// few thousand long notes runs far past a 20 ms deadline and answers 503
// with Retry-After, while an indexed list of the same company answers 200 at
// once, and the server keeps serving. Both engines.
#include <cppunit/extensions/HelperMacros.h>

#include <Poco/URI.h>

#include <string>

#include "e2e/companies/CrmApi.h"

using namespace rapport::e2e;
using namespace rapport::e2e::crm;

namespace {

constexpr int kBatches = 30;  // 3,000 contacts
constexpr int kBatchSize = 100;

ServerProcess& deadlineServer() {
  static ServerProcess server([] {
    ServerProcess::Settings settings = crmSettings();
    settings["database.query_timeout_ms"] = "20";
    return settings;
  }());
  return server;
}

std::string urlEncode(const std::string& text) {
  std::string out;
  Poco::URI::encode(text, "&=+?#%/:,{}[]\"", out);
  return out;
}

// 40 alternatives, none of which matches: every note is read 40 times.
std::string unindexableFilter() {
  Json alternatives = Json::array();
  for (int i = 0; i < 40; ++i) {
    alternatives.push(
        Json::object({{"notes", Json::object({{"contains", "absent-" + std::to_string(i)}})}}));
  }
  return Json::object({{"or", std::move(alternatives)}}).dump();
}

}  // namespace

class ContactsDeadlineTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ContactsDeadlineTest);
  CPPUNIT_TEST(testAnUnindexableListStopsAtTheDeadline);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testAnUnindexableListStopsAtTheDeadline() {
    HttpClient client(deadlineServer().port());
    const Account account = registerUser(client, "contacts-deadline");
    const std::string notes(4000, 'n');
    for (int batch = 0; batch < kBatches; ++batch) {
      Json items = Json::array();
      for (int i = 0; i < kBatchSize; ++i) {
        items.push(Json::object(
            {{"action", "create"},
             {"data", Json::object({{"name", "Slow " + std::to_string(batch * kBatchSize + i)},
                                    {"notes", notes}})}}));
      }
      E2E_ASSERT_STATUS(
          200, client.post("/v1/crm/contacts/batch", Json::object({{"items", std::move(items)}}),
                           bearer(account.token)));
    }
    const std::string slow =
        "/v1/crm/contacts?filter=" + urlEncode(unindexableFilter()) + "&per_page=20";
    const HttpResult stopped = client.get(slow, bearer(account.token));
    E2E_ASSERT_ERROR(503, stopped);
    CPPUNIT_ASSERT_MESSAGE(describe(stopped), stopped.hasHeader("Retry-After"));
    // The cursor form and the search body stop the same way.
    E2E_ASSERT_ERROR(503, client.post("/v1/crm/contacts/search",
                                      Json::object({{"filter", Json::parse(unindexableFilter())}}),
                                      bearer(account.token)));
    // An indexed list of the same company, on the same sessions, answers.
    const Json page =
        E2E_ASSERT_DATA(200, client.get("/v1/crm/contacts?per_page=5", bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(std::size_t(5), page.size());
    // So does a cheap filter (an id is indexed).
    E2E_ASSERT_DATA(200, client.get("/v1/crm/contacts?filter=" +
                                        urlEncode(R"({"owner_id":{"null":true}})") + "&limit=5",
                                    bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(kBatches * kBatchSize),
                         E2E_ASSERT_JSON(client.get("/v1/crm/contacts?per_page=1",
                                                    bearer(account.token)))["meta"]["total"]
                             .asInt());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ContactsDeadlineTest);
