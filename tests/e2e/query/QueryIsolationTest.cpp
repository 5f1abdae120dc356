// Tenant isolation of the query surface (decisions §13, issue 22 "Safety"):
// a filter, even through a hop (company.industry, contact.email), sees only
// the tenant's own records; include never embeds another tenant's record.
//
// Records of one tenant cannot refer to another's through the API (the
// modules answer 404), so a leak could never show through it: the tests
// point a record of tenant B at a record of tenant A straight in the
// database (contacts.crm_company_id, deals.contact_id: the columns the
// modules' migrations name), as a bug or a restored backup could, and check
// that the hop and the include still look only inside B.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/query/QueryDataset.h"

using namespace rapport::e2e;
using namespace rapport::e2e::query;

namespace {

// Tenant B: a CRM company named and typed like the dataset's acme, a contact
// linked to it, a contact and a deal that the database points at tenant A's
// acme and alice.
struct OtherTenant {
  Account account;
  std::string acme, zoe, yan, deal;
};

const OtherTenant& otherTenant() {
  static const OtherTenant other = [] {
    const Dataset& d = dataset();
    HttpClient client(queryServer().port());
    OtherTenant o;
    o.account = registerUser(client, "query-isolation");
    const std::string& token = o.account.token;
    o.acme = createCrmCompany(client, token,
                              Json::object({{"name", "Acme Retail"}, {"industry", "Retail"}}))["id"]
                 .asString();
    o.zoe = createContact(
                client, token,
                Json::object(
                    {{"name", "Zoe"}, {"email", "zoe@north.io"}, {"company_id", o.acme}}))["id"]
                .asString();
    o.yan = createContact(client, token, Json::object({{"name", "Yan"}}))["id"].asString();
    const Pipeline pipeline = salesPipeline(client, token);
    o.deal = createDeal(client, token,
                        Json::object({{"title", "Foreign"},
                                      {"pipeline_id", pipeline.id},
                                      {"stage_id", pipeline.stages[0]}}))["id"]
                 .asString();
    const std::string& db = queryServer().databaseUrl();
    const auto point = [&](const std::string& sql) {
      CPPUNIT_ASSERT_EQUAL_MESSAGE(sql, std::size_t(1), queryDatabase(db, sql).size());
    };
    point("UPDATE contacts SET crm_company_id = " + sqlQuote(d.acme) +
          " WHERE id = " + sqlQuote(o.yan) + " RETURNING id");
    point("UPDATE deals SET contact_id = " + sqlQuote(d.alice) + " WHERE id = " + sqlQuote(o.deal) +
          " RETURNING id");
    return o;
  }();
  return other;
}

}  // namespace

class QueryIsolationTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(QueryIsolationTest);
  CPPUNIT_TEST(testHopFilterSeesOnlyTheTenantsCompanies);
  CPPUNIT_TEST(testHopThroughAForeignReferenceFindsNothing);
  CPPUNIT_TEST(testIncludeNeverEmbedsAnotherTenantsRecord);
  CPPUNIT_TEST(testFiltersOnIdsOfAnotherTenantFindNothing);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override { client_ = std::make_unique<HttpClient>(queryServer().port()); }
  void tearDown() override { client_.reset(); }

  Ids contacts(const std::string& token, const std::string& filter) {
    return matching(*client_, token, kContacts, Json::parse(filter));
  }

  void testHopFilterSeesOnlyTheTenantsCompanies() {
    const Dataset& d = dataset();
    const OtherTenant& o = otherTenant();
    CPPUNIT_ASSERT(contacts(d.account.token, R"({"company.industry":"Retail"})") ==
                   (Ids{d.alice, d.bob}));
    CPPUNIT_ASSERT(contacts(o.account.token, R"({"company.industry":"Retail"})") == (Ids{o.zoe}));
    CPPUNIT_ASSERT(contacts(o.account.token, R"({"company.industry":"Mining"})").empty());
  }

  // yan's company_id names tenant A's acme (Retail): B's hop must not follow it.
  void testHopThroughAForeignReferenceFindsNothing() {
    const Dataset& d = dataset();
    const OtherTenant& o = otherTenant();
    CPPUNIT_ASSERT(contacts(o.account.token, R"({"company.industry":{"starts_with":"ret"}})") ==
                   (Ids{o.zoe}));
    CPPUNIT_ASSERT(contacts(o.account.token, R"({"company.annual_revenue":{"gte":1}})").empty());
    CPPUNIT_ASSERT(matching(*client_, o.account.token, kDeals,
                            Json::parse(R"({"contact.email":{"contains":"north"}})"))
                       .empty());
    CPPUNIT_ASSERT(matching(*client_, o.account.token, kDeals,
                            Json::parse(R"({"contact.name":"Alice Walker"})"))
                       .empty());
    // And A's lists are untouched by B's rows.
    CPPUNIT_ASSERT(contacts(d.account.token, R"({"company.industry":"Retail"})") ==
                   (Ids{d.alice, d.bob}));
  }

  void testIncludeNeverEmbedsAnotherTenantsRecord() {
    const OtherTenant& o = otherTenant();
    const Json people = listBody(*client_, o.account.token, kContacts, "sort=name&include=company");
    CPPUNIT_ASSERT(idsOf(people) == (Ids{o.yan, o.zoe}));
    CPPUNIT_ASSERT_MESSAGE(people.dump(), people["data"].asArray().at(0)["company"].isNull());
    CPPUNIT_ASSERT_EQUAL(o.acme, people["data"].asArray().at(1)["company"]["id"].asString());
    const Json deals = listBody(*client_, o.account.token, kDeals, "include=contact,company");
    CPPUNIT_ASSERT(idsOf(deals) == (Ids{o.deal}));
    CPPUNIT_ASSERT_MESSAGE(deals.dump(), deals["data"].asArray().at(0)["contact"].isNull());
    // The same through search, in cursor form.
    const HttpResult searched = search(*client_, o.account.token, kContacts,
                                       Json::object({{"include", Json::Array{"company"}},
                                                     {"filter", Json::object({{"id", o.yan}})}}));
    const Json found = E2E_ASSERT_DATA(200, searched);
    CPPUNIT_ASSERT_MESSAGE(found.dump(), found.asArray().at(0)["company"].isNull());
  }

  void testFiltersOnIdsOfAnotherTenantFindNothing() {
    const Dataset& d = dataset();
    const OtherTenant& o = otherTenant();
    Json theirs = Json::array();
    for (const std::string& id : d.contacts()) theirs.push(id);
    CPPUNIT_ASSERT(matching(*client_, o.account.token, kContacts,
                            Json::object({{"id", Json::object({{"in", theirs}})}}))
                       .empty());
    CPPUNIT_ASSERT(
        matching(*client_, o.account.token, kContacts, Json::object({{"company_id", d.bolt}}))
            .empty());
    CPPUNIT_ASSERT(
        matching(*client_, o.account.token, kDeals, Json::object({{"owner_id", d.account.userId}}))
            .empty());
  }

 private:
  std::unique_ptr<HttpClient> client_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(QueryIsolationTest);
