// Combinators and paths of `filter` (decisions §13) on the shared dataset
// (QueryDataset.h): the implicit top-level and, explicit and/or/not nested,
// §13's own example, the null semantics of record_query.h (ne and nin match
// an unset field, not is the exact complement, unset fields included), and
// one hop through a reference: company.industry on contacts, contact.email
// and company.name on deals.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/query/QueryDataset.h"

using namespace rapport::e2e;
using namespace rapport::e2e::query;

class QueryLogicTest : public QueryFixture {
  CPPUNIT_TEST_SUITE(QueryLogicTest);
  CPPUNIT_TEST(testTopLevelIsAnAnd);
  CPPUNIT_TEST(testOr);
  CPPUNIT_TEST(testAndOfOrs);
  CPPUNIT_TEST(testNotIsTheExactComplement);
  CPPUNIT_TEST(testNotOfNeKeepsOnlySetValues);
  CPPUNIT_TEST(testNestedCombinators);
  CPPUNIT_TEST(testTheExampleOfTheDecisions);
  CPPUNIT_TEST(testCompanyIndustryOnContacts);
  CPPUNIT_TEST(testContactEmailAndCompanyNameOnDeals);
  CPPUNIT_TEST(testPipelineAndStagePathsOnDeals);
  CPPUNIT_TEST(testPathsCombineWithOwnFields);
  CPPUNIT_TEST_SUITE_END();

 public:
  Ids contacts(const std::string& filter) {
    return matching(*client_, token_, kContacts, Json::parse(filter));
  }
  Ids deals(const std::string& filter) {
    return matching(*client_, token_, kDeals, Json::parse(filter));
  }

  void testTopLevelIsAnAnd() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(contacts(R"({"tags":{"contains":"lead"},"company_id":")" + d.acme +
                            R"(","owner_id":")" + d.account.userId + R"("})") == (Ids{d.alice}));
    CPPUNIT_ASSERT(contacts(R"({"name":{"contains":"stone","starts_with":"c"}})") ==
                   (Ids{d.carol}));
    CPPUNIT_ASSERT(contacts(R"({})") == d.contacts());
  }

  void testOr() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(contacts(R"({"or":[{"name":{"starts_with":"a"}},{"email":{"null":true}}]})") ==
                   (Ids{d.alice, d.dan}));
    CPPUNIT_ASSERT(deals(R"({"or":[{"status":"lost"},{"value":{"lt":10000}}]})") ==
                   (Ids{d.parts, d.audit}));
    // An or beside other keys is one more condition of the implicit and.
    CPPUNIT_ASSERT(deals(R"({"status":"open","or":[{"probability":{"gte":40}},{"value":5000}]})") ==
                   (Ids{d.engine, d.parts}));
  }

  void testAndOfOrs() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(deals(R"({"and":[{"or":[{"status":"won"},{"status":"lost"}]},)"
                         R"({"or":[{"value":{"gte":200000}},{"probability":{"lte":50}}]}]})") ==
                   (Ids{d.audit, d.mega}));
  }

  // record_query.h: not matches every record its filter does not, records
  // whose field is unset included.
  void testNotIsTheExactComplement() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(contacts(R"({"not":{"tags":{"contains":"lead"}}})") ==
                   (Ids{d.carol, d.dan, d.erin, d.fay}));
    CPPUNIT_ASSERT(contacts(R"({"not":{"job_title":"CEO"}})") ==
                   (Ids{d.bob, d.carol, d.dan, d.erin, d.fay}));
    CPPUNIT_ASSERT(contacts(R"({"not":{"job_title":{"gt":"c"}}})") ==
                   (Ids{d.bob, d.dan, d.erin, d.fay}));
    CPPUNIT_ASSERT(contacts(R"({"not":{"email":{"contains":"north"}}})") ==
                   (Ids{d.bob, d.dan, d.erin, d.fay}));
    // Each record is in a filter or in its not, never both.
    for (const char* filter : {R"({"owner_id":{"null":false}})", R"({"job_title":{"ne":"cto"}})",
                               R"({"email":{"starts_with":"b"}})"}) {
      const Ids in = contacts(filter);
      const Ids out = contacts(std::string(R"({"not":)") + filter + "}");
      Ids all = concat({in, out});
      CPPUNIT_ASSERT_MESSAGE(filter, byId(all) == byId(d.contacts()));
    }
  }

  // ne matches the unset fields, so its complement holds only the set ones
  // equal to the value.
  void testNotOfNeKeepsOnlySetValues() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(contacts(R"({"not":{"job_title":{"ne":"CEO"}}})") == (Ids{d.alice}));
    CPPUNIT_ASSERT(contacts(R"({"not":{"email":{"nin":["bob@south.io"]}}})") == (Ids{d.bob}));
  }

  void testNestedCombinators() {
    const Dataset& d = dataset();
    // (north e-mail or no e-mail) and not (owned by me).
    CPPUNIT_ASSERT(contacts(R"({"and":[{"or":[{"email":{"contains":"north"}},)"
                            R"({"email":{"null":true}}]},)"
                            R"({"not":{"owner_id":")" +
                            d.account.userId + R"("}}]})") == (Ids{d.carol}));
    CPPUNIT_ASSERT(contacts(R"({"not":{"not":{"name":"Dan Ode"}}})") == (Ids{d.dan}));
    CPPUNIT_ASSERT(contacts(R"({"or":[{"not":{"tags":{"null":true}}},{"owner_id":")" +
                            d.colleague.userId + R"("}]})") ==
                   (Ids{d.alice, d.bob, d.carol, d.erin, d.fay}));
  }

  // §13's example: value >= 100000, status open or won, owned by the user or
  // by nobody. fleet is the colleague's, audit is lost, parts is too small.
  void testTheExampleOfTheDecisions() {
    const Dataset& d = dataset();
    const std::string filter = R"({"value":{"gte":100000},"status":{"in":["open","won"]},)"
                               R"("or":[{"owner_id":")" +
                               d.account.userId + R"("},{"owner_id":{"null":true}}]})";
    CPPUNIT_ASSERT(deals(filter) == (Ids{d.engine, d.renewal, d.mega}));
    // The same through POST /search.
    const Json body = E2E_ASSERT_DATA(
        200, search(*client_, token_, kDeals,
                    Json::object({{"filter", Json::parse(filter)}, {"sort", "created_at"}})));
    CPPUNIT_ASSERT(pluck(body, "id") == (Ids{d.engine, d.renewal, d.mega}));
  }

  void testCompanyIndustryOnContacts() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(contacts(R"({"company.industry":"Retail"})") == (Ids{d.alice, d.bob}));
    CPPUNIT_ASSERT(contacts(R"({"company.industry":{"starts_with":"ret"}})") ==
                   (Ids{d.alice, d.bob, d.erin}));
    CPPUNIT_ASSERT(contacts(R"({"company.industry":{"in":["Mining","Retail & Food"]}})") ==
                   (Ids{d.carol, d.erin}));
    CPPUNIT_ASSERT(contacts(R"({"company.name":{"contains":"MINING"}})") == (Ids{d.carol}));
    CPPUNIT_ASSERT(contacts(R"({"company.annual_revenue":{"gte":250000}})") ==
                   (Ids{d.alice, d.bob, d.erin}));
    CPPUNIT_ASSERT(contacts(R"({"company.tags":{"contains":"big"}})") ==
                   (Ids{d.alice, d.bob, d.erin}));
    CPPUNIT_ASSERT(contacts(R"({"company.industry":"Nothing"})").empty());
    // A hop keeps only records whose reference is set (docs/api-choices.md):
    // ne matches fay (her company has no industry), never dan (no company).
    CPPUNIT_ASSERT(contacts(R"({"company.industry":{"ne":"Retail"}})") ==
                   (Ids{d.carol, d.erin, d.fay}));
    CPPUNIT_ASSERT(contacts(R"({"company.industry":{"null":true}})") == (Ids{d.fay}));
  }

  void testContactEmailAndCompanyNameOnDeals() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(deals(R"({"contact.email":{"contains":"north"}})") ==
                   (Ids{d.engine, d.fleet, d.renewal}));
    CPPUNIT_ASSERT(deals(R"({"contact.email":"erin@west.io"})") == (Ids{d.mega}));
    CPPUNIT_ASSERT(deals(R"({"company.name":"Acme Retail"})") == (Ids{d.engine, d.parts}));
    CPPUNIT_ASSERT(deals(R"({"company.name":{"starts_with":"c"}})") == (Ids{d.renewal}));
    CPPUNIT_ASSERT(deals(R"({"contact.name":{"contains":"stone"}})") == (Ids{d.parts, d.fleet}));
  }

  // docs/api-choices.md: deals also hop through pipeline and stage.
  void testPipelineAndStagePathsOnDeals() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(deals(R"({"pipeline.name":"Renewals"})") == (Ids{d.renewal, d.mega}));
    CPPUNIT_ASSERT(deals(R"({"stage.name":{"in":["Proposal","Closing"]}})") ==
                   (Ids{d.engine, d.fleet, d.audit}));
    CPPUNIT_ASSERT(deals(R"({"stage.probability":{"lte":30}})") ==
                   (Ids{d.parts, d.renewal, d.mega}));
  }

  void testPathsCombineWithOwnFields() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(deals(R"({"company.industry":{"starts_with":"retail"},"status":"open"})") ==
                   (Ids{d.engine, d.parts}));
    CPPUNIT_ASSERT(
        deals(R"({"or":[{"contact.email":{"contains":"south"}},{"company.name":"Cask"}]})") ==
        (Ids{d.parts, d.renewal}));
    CPPUNIT_ASSERT(contacts(R"({"not":{"company.industry":"Retail"}})") ==
                   (Ids{d.carol, d.dan, d.erin, d.fay}));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(QueryLogicTest);
