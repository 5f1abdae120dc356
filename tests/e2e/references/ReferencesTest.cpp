// Deletes racing creates that reference the deleted record (issue 6: a
// reference check that holds; decisions §7: deleting a contact, a CRM company
// or a deal unlinks the deals, activities and contacts that point at it).
//
// Each round the owner creates a record; then one client deletes it while
// seven others create records naming it (deals with contact_id or
// company_id, activities related_to it, contacts with company_id), all
// released together, each on its own connection. The delete answers 200;
// every create answers 201 (it came first: the delete then unlinked it) or
// 404 naming the missing record (the delete came first), never 500 or 503.
// The racing rounds' order is the scheduler's; two ordered rounds then see
// each order for certain (create then delete, delete then create).
// After the rounds the database holds no deal, activity or contact whose
// reference names a record that no longer exists. On PostgreSQL this is
// RecordDirectory::lockForReference's FOR KEY SHARE at work; SQLite
// serialises writers.
#include <cppunit/extensions/HelperMacros.h>

#include <functional>
#include <string>
#include <vector>

#include "e2e/companies/CrmApi.h"
#include "e2e/companies/Together.h"

using namespace rapport::e2e;
using namespace rapport::e2e::crm;

namespace {

constexpr int kRounds = 20;
constexpr std::size_t kCreators = 7;

ServerProcess& referencesServer() {
  static ServerProcess server(crmSettings("contacts,companies,pipelines,deals,activities"));
  return server;
}

// A create that names the record being deleted, and the 404 message it
// answers when the delete came first.
struct Creator {
  std::string path;
  std::function<Json(const std::string& target)> body;
  std::string notFound;
};

// The tenant of a test: its owner and a pipeline with one stage for deals.
struct Tenant {
  Account owner;
  std::string pipeline;
  std::string stage;
};

Tenant newTenant(HttpClient& client, const std::string& label) {
  Tenant t;
  t.owner = registerUser(client, label);
  const Json pipeline = create(
      client, t.owner.token, "/v1/crm/pipelines",
      Json::object({{"name", "Sales"}, {"stages", Json::Array{Json::object({{"name", "Lead"}})}}}));
  t.pipeline = pipeline["id"].asString();
  t.stage = pipeline["stages"].asArray().at(0)["id"].asString();
  return t;
}

Creator dealWith(const Tenant& t, const std::string& field, const std::string& notFound) {
  return {"/v1/crm/deals",
          [&t, field](const std::string& target) {
            return Json::object({{"title", "Racing deal"},
                                 {"pipeline_id", t.pipeline},
                                 {"stage_id", t.stage},
                                 {field, target},
                                 {"value", 1000}});
          },
          notFound};
}

Creator activityRelatedTo(const std::string& type) {
  return {"/v1/crm/activities",
          [type](const std::string& target) {
            return Json::object({{"type", "call"},
                                 {"title", "Racing call"},
                                 {"related_to", Json::object({{"type", type}, {"id", target}})}});
          },
          "Related record not found."};
}

Creator contactOfCompany() {
  return {"/v1/crm/contacts",
          [](const std::string& target) {
            return Json::object({{"name", "Racing contact"}, {"company_id", target}});
          },
          "Company not found."};
}

// What the rounds saw.
struct Outcome {
  int attempts = 0;
  int created = 0;
  int refused = 0;
  std::string failures;
};

// Checks one create's answer: 201 (it came before the delete) or the 404
// naming the missing record (the delete came first); anything else is a
// failure noted in `outcome`.
void countCreate(const Creator& creator, const HttpResult& result, const std::string& label,
                 Outcome& outcome) {
  ++outcome.attempts;
  try {
    if (result.status == 201) {
      assertData(201, result, CPPUNIT_SOURCELINE());
      ++outcome.created;
    } else {
      assertErrorMessage(404, creator.notFound, result, CPPUNIT_SOURCELINE());
      ++outcome.refused;
    }
  } catch (const CppUnit::Exception& e) {
    outcome.failures += "\n" + label + ": " + e.what();
  }
}

// One round: deletes `deletePath` while kCreators clients send the creators
// (taken in turn) naming `target`.
void raceRound(const Tenant& t, const std::string& target, const std::string& deletePath,
               const std::vector<Creator>& creators, Outcome& outcome) {
  const int port = referencesServer().port();
  const std::size_t deleter = kCreators / 2;  // in the middle of the pack
  const auto results = sendTogether(port, kCreators + 1, [&](HttpClient& own, std::size_t i) {
    if (i == deleter) return own.del(deletePath, bearer(t.owner.token));
    const Creator& creator = creators[(i < deleter ? i : i - 1) % creators.size()];
    return own.post(creator.path, creator.body(target), bearer(t.owner.token));
  });
  for (std::size_t i = 0; i < results.size(); ++i) {
    const std::string label = target + " #" + std::to_string(i);
    if (i != deleter) {
      countCreate(creators[(i < deleter ? i : i - 1) % creators.size()], results[i], label,
                  outcome);
      continue;
    }
    try {
      assertData(200, results[i], CPPUNIT_SOURCELINE());
    } catch (const CppUnit::Exception& e) {
      outcome.failures += "\n" + label + ": " + e.what();
    }
  }
}

// Both orders, one after the other, so each is seen whatever the scheduler
// did in the racing rounds: every creator once before the delete of `first`
// (201, then unlinked by the delete) and once after the delete of `second`
// (404).
void orderedRounds(HttpClient& client, const Tenant& t, const std::string& first,
                   const std::string& second, const std::string& deletePrefix,
                   const std::vector<Creator>& creators, Outcome& outcome) {
  for (const Creator& creator : creators) {
    countCreate(creator, client.post(creator.path, creator.body(first), bearer(t.owner.token)),
                first + " before", outcome);
  }
  assertData(200, client.del(deletePrefix + first, bearer(t.owner.token)), CPPUNIT_SOURCELINE());
  assertData(200, client.del(deletePrefix + second, bearer(t.owner.token)), CPPUNIT_SOURCELINE());
  for (const Creator& creator : creators) {
    countCreate(creator, client.post(creator.path, creator.body(second), bearer(t.owner.token)),
                second + " after", outcome);
  }
}

// Every reference in `tenant`'s rows that names a record that does not exist.
std::vector<std::string> danglingReferences(const std::string& tenant) {
  const std::string t = sqlQuote(tenant);
  const struct {
    const char* what;
    std::string sql;
  } checks[] = {
      {"deal -> contact",
       "SELECT d.id, d.contact_id FROM deals d WHERE d.company_id = " + t +
           " AND d.contact_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM contacts c "
           "WHERE c.company_id = d.company_id AND c.id = d.contact_id)"},
      {"deal -> company",
       "SELECT d.id, d.crm_company_id FROM deals d WHERE d.company_id = " + t +
           " AND d.crm_company_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM crm_companies c "
           "WHERE c.company_id = d.company_id AND c.id = d.crm_company_id)"},
      {"contact -> company",
       "SELECT p.id, p.crm_company_id FROM contacts p WHERE p.company_id = " + t +
           " AND p.crm_company_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM crm_companies c "
           "WHERE c.company_id = p.company_id AND c.id = p.crm_company_id)"},
      {"activity -> contact",
       "SELECT a.id, a.related_id FROM activities a WHERE a.company_id = " + t +
           " AND a.related_type = 'contact' AND NOT EXISTS (SELECT 1 FROM contacts c "
           "WHERE c.company_id = a.company_id AND c.id = a.related_id)"},
      {"activity -> company",
       "SELECT a.id, a.related_id FROM activities a WHERE a.company_id = " + t +
           " AND a.related_type = 'company' AND NOT EXISTS (SELECT 1 FROM crm_companies c "
           "WHERE c.company_id = a.company_id AND c.id = a.related_id)"},
      {"activity -> deal", "SELECT a.id, a.related_id FROM activities a WHERE a.company_id = " + t +
                               " AND a.related_type = 'deal' AND NOT EXISTS (SELECT 1 FROM deals d "
                               "WHERE d.company_id = a.company_id AND d.id = a.related_id)"},
      // An unlinked activity loses both halves of related_to.
      {"activity with half a link",
       "SELECT a.id, COALESCE(a.related_type, '') || '/' || COALESCE(a.related_id, '') "
       "FROM activities a WHERE a.company_id = " +
           t + " AND (a.related_type IS NULL) <> (a.related_id IS NULL)"},
  };
  std::vector<std::string> out;
  for (const auto& check : checks) {
    for (const auto& row : queryDatabase(referencesServer().databaseUrl(), check.sql)) {
      out.push_back(std::string(check.what) + ": " + row.at(0) + " -> " + row.at(1));
    }
  }
  return out;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += "\n" + line;
  return out;
}

// The rows of `table` in `tenant` (a check that the creates really wrote).
std::int64_t rowsOf(const std::string& table, const std::string& tenant) {
  return std::stoll(
      queryDatabase(referencesServer().databaseUrl(),
                    "SELECT COUNT(*) FROM " + table + " WHERE company_id = " + sqlQuote(tenant))
          .front()
          .front());
}

void assertClean(const Tenant& t, const Outcome& outcome) {
  CPPUNIT_ASSERT_MESSAGE(outcome.failures, outcome.failures.empty());
  CPPUNIT_ASSERT_EQUAL(outcome.attempts, outcome.created + outcome.refused);
  // Both orders happened: the ordered rounds make sure of it (the racing
  // rounds' order is the scheduler's and is not asserted).
  CPPUNIT_ASSERT_MESSAGE("no create ever got in before a delete", outcome.created > 0);
  CPPUNIT_ASSERT_MESSAGE("no delete ever got in before a create", outcome.refused > 0);
  const auto dangling = danglingReferences(t.owner.companyId);
  CPPUNIT_ASSERT_MESSAGE("dangling references:" + joined(dangling), dangling.empty());
}

}  // namespace

class ReferencesTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ReferencesTest);
  CPPUNIT_TEST(testContactDeletesLeaveNoDanglingReference);
  CPPUNIT_TEST(testCompanyDeletesLeaveNoDanglingReference);
  CPPUNIT_TEST(testDealDeletesLeaveNoDanglingReference);
  CPPUNIT_TEST_SUITE_END();

 public:
  // Deals with contact_id and activities related_to the contact.
  void testContactDeletesLeaveNoDanglingReference() {
    HttpClient client(referencesServer().port());
    const Tenant t = newTenant(client, "refs-contact");
    const std::vector<Creator> creators = {dealWith(t, "contact_id", "Contact not found."),
                                           activityRelatedTo("contact")};
    Outcome outcome;
    for (int round = 0; round < kRounds; ++round) {
      const std::string contact =
          createContact(client, t.owner.token, Json::object({{"name", "Doomed"}}))["id"].asString();
      raceRound(t, contact, "/v1/crm/contacts/" + contact, creators, outcome);
    }
    const auto newContact = [&] {
      return createContact(client, t.owner.token, Json::object({{"name", "Doomed"}}))["id"]
          .asString();
    };
    orderedRounds(client, t, newContact(), newContact(), "/v1/crm/contacts/", creators, outcome);
    assertClean(t, outcome);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, rowsOf("contacts", t.owner.companyId));
  }

  // Deals with company_id, activities related_to the company, contacts with
  // company_id.
  void testCompanyDeletesLeaveNoDanglingReference() {
    HttpClient client(referencesServer().port());
    const Tenant t = newTenant(client, "refs-company");
    const std::vector<Creator> creators = {dealWith(t, "company_id", "Company not found."),
                                           activityRelatedTo("company"), contactOfCompany()};
    Outcome outcome;
    for (int round = 0; round < kRounds; ++round) {
      const std::string company =
          createCrmCompany(client, t.owner.token, Json::object({{"name", "Doomed"}}))["id"]
              .asString();
      raceRound(t, company, "/v1/crm/companies/" + company, creators, outcome);
    }
    const auto newCompany = [&] {
      return createCrmCompany(client, t.owner.token, Json::object({{"name", "Doomed"}}))["id"]
          .asString();
    };
    orderedRounds(client, t, newCompany(), newCompany(), "/v1/crm/companies/", creators, outcome);
    assertClean(t, outcome);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, rowsOf("crm_companies", t.owner.companyId));
  }

  // Activities related_to the deal.
  void testDealDeletesLeaveNoDanglingReference() {
    HttpClient client(referencesServer().port());
    const Tenant t = newTenant(client, "refs-deal");
    const std::vector<Creator> creators = {activityRelatedTo("deal")};
    Outcome outcome;
    for (int round = 0; round < kRounds; ++round) {
      const std::string deal = create(client, t.owner.token, "/v1/crm/deals",
                                      Json::object({{"title", "Doomed"},
                                                    {"pipeline_id", t.pipeline},
                                                    {"stage_id", t.stage}}))["id"]
                                   .asString();
      raceRound(t, deal, "/v1/crm/deals/" + deal, creators, outcome);
    }
    const auto newDeal = [&] {
      return create(client, t.owner.token, "/v1/crm/deals",
                    Json::object({{"title", "Doomed"},
                                  {"pipeline_id", t.pipeline},
                                  {"stage_id", t.stage}}))["id"]
          .asString();
    };
    orderedRounds(client, t, newDeal(), newDeal(), "/v1/crm/deals/", creators, outcome);
    assertClean(t, outcome);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, rowsOf("deals", t.owner.companyId));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ReferencesTest);
