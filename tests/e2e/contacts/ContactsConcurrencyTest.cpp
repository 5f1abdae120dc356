// Concurrent creates of one e-mail (decisions §7: e-mail unique per company,
// any case; §1: a 500 never answers a client's mistake): 8 clients released
// together, each on its own connection. Exactly one answers 201, every other
// 409 with the envelope and the duplicate message; the list, its total (the
// slotted counts) and the event log then hold that one contact. Both engines.
#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "e2e/companies/Together.h"
#include "e2e/contacts/ContactsSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::crm;

namespace {

constexpr std::size_t kClients = 8;
constexpr int kRounds = 3;

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

class ContactsConcurrencyTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ContactsConcurrencyTest);
  CPPUNIT_TEST(testConcurrentDuplicateEmailsMakeOneContact);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testConcurrentDuplicateEmailsMakeOneContact() {
    ServerProcess& server = contactsServer();
    HttpClient client(server.port());
    const Account account = registerUser(client, "contacts-race");
    std::vector<std::string> created;  // oldest first
    for (int round = 0; round < kRounds; ++round) {
      const std::string email = uniqueEmail("race");
      const auto results =
          sendTogether(server.port(), kClients, [&](HttpClient& own, std::size_t i) {
            // Half of them in upper case: the same address for the rule.
            const std::string sent = i % 2 == 0 ? email : upper(email);
            return own.post("/v1/crm/contacts",
                            Json::object({{"name", "Racer " + std::to_string(i)}, {"email", sent}}),
                            bearer(account.token));
          });
      std::vector<std::string> ids;
      for (const HttpResult& result : results) {
        if (result.status == 201) {
          const Json contact = E2E_ASSERT_DATA(201, result);
          CPPUNIT_ASSERT_EQUAL(email, contact["email"].asString());
          ids.push_back(contact["id"].asString());
          continue;
        }
        CRM_ASSERT_ERROR_MESSAGE(409, "A contact with this email already exists.", result);
      }
      CPPUNIT_ASSERT_EQUAL_MESSAGE(statusSummary(results), std::size_t{1}, ids.size());
      created.push_back(ids.front());

      // The list holds one contact more, counted once.
      const Json list = getBody(client, account.token, "/v1/crm/contacts?per_page=100");
      CPPUNIT_ASSERT_EQUAL(static_cast<std::int64_t>(created.size()),
                           list["meta"]["total"].asInt());
      std::vector<std::string> newestFirst(created.rbegin(), created.rend());
      CPPUNIT_ASSERT(newestFirst == idsOf(list));
    }
    // One created event per contact; the refused creates left nothing behind.
    const auto rows = queryDatabase(
        server.databaseUrl(),
        "SELECT COUNT(*) FROM events WHERE company_id = " + sqlQuote(account.companyId) +
            " AND type = 'crm.contact.created'");
    CPPUNIT_ASSERT_EQUAL(std::to_string(kRounds), rows.front().front());
    const auto stored =
        queryDatabase(server.databaseUrl(), "SELECT COUNT(*) FROM contacts WHERE company_id = " +
                                                sqlQuote(account.companyId));
    CPPUNIT_ASSERT_EQUAL(std::to_string(kRounds), stored.front().front());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ContactsConcurrencyTest);
