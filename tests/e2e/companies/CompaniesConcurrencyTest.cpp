// Concurrent creates of one document (decisions §7: document unique per
// company; §1: a 500 never answers a client's mistake): 8 clients released
// together, each on its own connection. Exactly one answers 201, every other
// 409 with the envelope and the duplicate message; the list, its total (the
// slotted counts) and the event log then hold that one company. Both engines.
#include <cppunit/extensions/HelperMacros.h>

#include <string>
#include <vector>

#include "e2e/companies/CompaniesSuite.h"
#include "e2e/companies/Together.h"

using namespace rapport::e2e;
using namespace rapport::e2e::crm;

namespace {

constexpr std::size_t kClients = 8;
constexpr int kRounds = 3;

}  // namespace

class CompaniesConcurrencyTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(CompaniesConcurrencyTest);
  CPPUNIT_TEST(testConcurrentDuplicateDocumentsMakeOneCompany);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testConcurrentDuplicateDocumentsMakeOneCompany() {
    ServerProcess& server = companiesServer();
    HttpClient client(server.port());
    const Account account = registerUser(client, "companies-race");
    std::vector<std::string> created;  // oldest first
    for (int round = 0; round < kRounds; ++round) {
      const std::string document = "12.345.678/0001-" + randomHex(6);
      const auto results =
          sendTogether(server.port(), kClients, [&](HttpClient& own, std::size_t i) {
            // Half of them padded: the same document once trimmed.
            const std::string sent = i % 2 == 0 ? document : "  " + document + " ";
            return own.post(
                "/v1/crm/companies",
                Json::object({{"name", "Racer " + std::to_string(i)}, {"document", sent}}),
                bearer(account.token));
          });
      std::vector<std::string> ids;
      for (const HttpResult& result : results) {
        if (result.status == 201) {
          const Json company = E2E_ASSERT_DATA(201, result);
          CPPUNIT_ASSERT_EQUAL(document, company["document"].asString());
          ids.push_back(company["id"].asString());
          continue;
        }
        CRM_ASSERT_ERROR_MESSAGE(409, "A company with this document already exists.", result);
      }
      CPPUNIT_ASSERT_EQUAL_MESSAGE(statusSummary(results), std::size_t{1}, ids.size());
      created.push_back(ids.front());

      // The list holds one company more, counted once.
      const Json list = getBody(client, account.token, "/v1/crm/companies?per_page=100");
      CPPUNIT_ASSERT_EQUAL(static_cast<std::int64_t>(created.size()),
                           list["meta"]["total"].asInt());
      std::vector<std::string> newestFirst(created.rbegin(), created.rend());
      CPPUNIT_ASSERT(newestFirst == idsOf(list));
    }
    // One created event per company; the refused creates left nothing behind.
    const auto rows = queryDatabase(
        server.databaseUrl(),
        "SELECT COUNT(*) FROM events WHERE company_id = " + sqlQuote(account.companyId) +
            " AND type = 'crm.company.created'");
    CPPUNIT_ASSERT_EQUAL(std::to_string(kRounds), rows.front().front());
    const auto stored = queryDatabase(
        server.databaseUrl(),
        "SELECT COUNT(*) FROM crm_companies WHERE company_id = " + sqlQuote(account.companyId));
    CPPUNIT_ASSERT_EQUAL(std::to_string(kRounds), stored.front().front());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(CompaniesConcurrencyTest);
