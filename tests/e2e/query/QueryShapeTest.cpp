// `sort`, `fields` and `include` (decisions §13) on the shared dataset
// (QueryDataset.h): up to three keys with '-', ties broken on id in the last
// key's direction, text without regard to case, unset values first ascending
// and last descending (text, numbers, dates, date-times), instants across
// offsets; fields keeping only the named members plus id; include embedding
// each referenced record exactly as its own GET answers it (company on
// contacts; company, contact, pipeline, stage on deals; related on
// activities), null when unset, the rest of the record unchanged.
#include <cppunit/extensions/HelperMacros.h>

#include <functional>
#include <map>

#include "e2e/query/QueryDataset.h"

using namespace rapport::e2e;
using namespace rapport::e2e::query;

class QueryShapeTest : public QueryFixture {
  CPPUNIT_TEST_SUITE(QueryShapeTest);
  CPPUNIT_TEST(testTextSortIgnoresCase);
  CPPUNIT_TEST(testUnsetTextSortsFirstAscendingLastDescending);
  CPPUNIT_TEST(testUnsetNumberSortsFirstAscendingLastDescending);
  CPPUNIT_TEST(testUnsetCloseDateSortsLastAscending);
  CPPUNIT_TEST(testDateTimeSortOrdersInstants);
  CPPUNIT_TEST(testTiesBreakOnIdInTheLastKeysDirection);
  CPPUNIT_TEST(testThreeKeys);
  CPPUNIT_TEST(testSortWithFilter);
  CPPUNIT_TEST(testFieldsKeepOnlyThoseAndId);
  CPPUNIT_TEST(testIncludeCompanyOnContacts);
  CPPUNIT_TEST(testIncludeCompanyAndContactOnDeals);
  CPPUNIT_TEST(testIncludeStageOnDeals);
  CPPUNIT_TEST(testIncludePipelineOnDeals);
  CPPUNIT_TEST(testIncludeRelatedOnActivities);
  CPPUNIT_TEST(testIncludeInCursorForm);
  CPPUNIT_TEST_SUITE_END();

 public:
  Ids sorted(const std::string& path, const std::string& sort) {
    return listed(*client_, token_, path, "sort=" + urlEncode(sort));
  }
  Json read(const std::string& path) {
    return E2E_ASSERT_DATA(200, client_->get(path, bearer(token_)));
  }
  // The records of `path` with `query` (one page of 100), by id.
  std::map<std::string, Json> records(const std::string& path, const std::string& query) {
    std::map<std::string, Json> out;
    const Json body = listBody(*client_, token_, path, query + "&per_page=100");
    for (const Json& record : body["data"].asArray()) out[record["id"].asString()] = record;
    return out;
  }
  // `embedded` is what GET `path` answers, or null when `path` is empty.
  void assertEmbeds(const Json& embedded, const std::string& path, const std::string& what) {
    if (path.empty()) {
      CPPUNIT_ASSERT_MESSAGE(what + ": " + embedded.dump(), embedded.isNull());
    } else {
      CPPUNIT_ASSERT_EQUAL_MESSAGE(what, read(path).dump(), embedded.dump());
    }
  }
  // `withIncludes` is `plain` plus exactly the members `names`.
  static void assertOnlyAdds(const Json& plain, Json withIncludes,
                             const std::vector<std::string>& names) {
    for (const std::string& name : names) {
      CPPUNIT_ASSERT_MESSAGE(name + " missing: " + withIncludes.dump(),
                             withIncludes.contains(name));
      withIncludes.erase(name);
    }
    CPPUNIT_ASSERT_EQUAL(plain.dump(), withIncludes.dump());
  }

  void testTextSortIgnoresCase() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(sorted(kContacts, "name") == d.contacts());
    CPPUNIT_ASSERT(sorted(kContacts, "-name") ==
                   (Ids{d.fay, d.erin, d.dan, d.carol, d.bob, d.alice}));
    CPPUNIT_ASSERT(sorted(kCompanies, "name") == (Ids{d.acme, d.bolt, d.cask, d.dyna}));
  }

  void testUnsetTextSortsFirstAscendingLastDescending() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(sorted(kContacts, "job_title") ==
                   concat({byId({d.bob, d.dan, d.fay}), {d.erin, d.alice, d.carol}}));
    CPPUNIT_ASSERT(sorted(kContacts, "-job_title") ==
                   concat({{d.carol, d.alice, d.erin}, byId({d.bob, d.dan, d.fay}, true)}));
    CPPUNIT_ASSERT(sorted(kContacts, "email") ==
                   (Ids{d.dan, d.alice, d.bob, d.carol, d.erin, d.fay}));
    CPPUNIT_ASSERT(sorted(kContacts, "-email") ==
                   (Ids{d.fay, d.erin, d.carol, d.bob, d.alice, d.dan}));
    CPPUNIT_ASSERT(sorted(kCompanies, "industry") == (Ids{d.cask, d.bolt, d.acme, d.dyna}));
    CPPUNIT_ASSERT(sorted(kCompanies, "-industry") == (Ids{d.dyna, d.acme, d.bolt, d.cask}));
  }

  void testUnsetNumberSortsFirstAscendingLastDescending() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(sorted(kCompanies, "annual_revenue") == (Ids{d.cask, d.bolt, d.dyna, d.acme}));
    CPPUNIT_ASSERT(sorted(kCompanies, "-annual_revenue") == (Ids{d.acme, d.dyna, d.bolt, d.cask}));
    CPPUNIT_ASSERT(sorted(kActivities, "duration_minutes") ==
                   concat({byId({d.sendQuote, d.note}), {d.mailBob, d.callAlice, d.meetAcme}}));
    CPPUNIT_ASSERT(
        sorted(kActivities, "-duration_minutes") ==
        concat({{d.meetAcme, d.callAlice, d.mailBob}, byId({d.sendQuote, d.note}, true)}));
  }

  // The exception the deals module keeps from before §13 (docs/modules/deals.md):
  // a deal without expected_close_date sorts after every date ascending.
  void testUnsetCloseDateSortsLastAscending() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(sorted(kDeals, "expected_close_date") ==
                   (Ids{d.fleet, d.engine, d.renewal, d.parts, d.mega, d.audit}));
    CPPUNIT_ASSERT(sorted(kDeals, "-expected_close_date") ==
                   (Ids{d.audit, d.mega, d.parts, d.renewal, d.engine, d.fleet}));
  }

  // mailBob 04:30Z (sent as -05:00), callAlice 09:00Z, meetAcme 12:00Z (sent
  // as +02:00); sendQuote and note have no time, and sort after every time
  // ascending (the activities module's order from before §13,
  // docs/modules/activities.md).
  void testDateTimeSortOrdersInstants() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(sorted(kActivities, "scheduled_at") ==
                   concat({{d.mailBob, d.callAlice, d.meetAcme}, byId({d.sendQuote, d.note})}));
    CPPUNIT_ASSERT(
        sorted(kActivities, "-scheduled_at") ==
        concat({byId({d.sendQuote, d.note}, true), {d.meetAcme, d.callAlice, d.mailBob}}));
    CPPUNIT_ASSERT(sorted(kContacts, "created_at") == d.contacts());
    CPPUNIT_ASSERT(sorted(kContacts, "-created_at") ==
                   (Ids{d.fay, d.erin, d.dan, d.carol, d.bob, d.alice}));
  }

  // fleet and renewal have the same value; engine and parts the same
  // pipeline and status.
  void testTiesBreakOnIdInTheLastKeysDirection() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(sorted(kDeals, "value") ==
                   concat({{d.parts}, byId({d.fleet, d.renewal}), {d.audit, d.engine, d.mega}}));
    CPPUNIT_ASSERT(
        sorted(kDeals, "-value") ==
        concat({{d.mega, d.engine, d.audit}, byId({d.fleet, d.renewal}, true), {d.parts}}));
    const bool salesFirst = d.sales.id < d.renewals.id;
    const Ids sales = concat({{d.fleet}, byId({d.engine, d.parts}, true), {d.audit}});
    const Ids renewals{d.mega, d.renewal};
    CPPUNIT_ASSERT(sorted(kDeals, "pipeline_id,-status") ==
                   (salesFirst ? concat({sales, renewals}) : concat({renewals, sales})));
    const Ids salesUp = concat({{d.audit}, byId({d.engine, d.parts}), {d.fleet}});
    const Ids renewalsUp{d.renewal, d.mega};
    CPPUNIT_ASSERT(sorted(kDeals, "-pipeline_id,status") ==
                   (salesFirst ? concat({renewalsUp, salesUp}) : concat({salesUp, renewalsUp})));
    // Activities of one status: pending before completed, ids within.
    CPPUNIT_ASSERT(sorted(kActivities, "-status") ==
                   concat({byId({d.callAlice, d.sendQuote, d.note}, true),
                           byId({d.meetAcme, d.mailBob}, true)}));
  }

  void testThreeKeys() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(sorted(kDeals, "status,-probability,title") ==
                   (Ids{d.audit, d.engine, d.renewal, d.parts, d.mega, d.fleet}));
    CPPUNIT_ASSERT(sorted(kDeals, "-status,value,title") ==
                   (Ids{d.fleet, d.mega, d.parts, d.renewal, d.engine, d.audit}));
    CPPUNIT_ASSERT(sorted(kActivities, "status,type,-scheduled_at") ==
                   (Ids{d.mailBob, d.meetAcme, d.callAlice, d.note, d.sendQuote}));
  }

  void testSortWithFilter() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(listed(*client_, token_, kDeals,
                          filterParam(Json::object({{"status", "open"}})) + "&sort=-value") ==
                   (Ids{d.engine, d.renewal, d.parts}));
    CPPUNIT_ASSERT(listed(*client_, token_, kContacts,
                          filterParam(Json::parse(R"({"company.industry":{"starts_with":"r"}})")) +
                              "&sort=-name") == (Ids{d.erin, d.bob, d.alice}));
  }

  void testFieldsKeepOnlyThoseAndId() {
    const Dataset& d = dataset();
    const auto full = records(kContacts, "sort=name");
    const Json body = listBody(*client_, token_, kContacts, "sort=name&fields=name,email");
    CPPUNIT_ASSERT(idsOf(body) == d.contacts());
    for (const Json& record : body["data"].asArray()) {
      CPPUNIT_ASSERT_MESSAGE(record.dump(),
                             keysOf(record) == (std::vector<std::string>{"email", "id", "name"}));
      const Json& whole = full.at(record["id"].asString());
      CPPUNIT_ASSERT_EQUAL(whole["name"].dump(), record["name"].dump());
      CPPUNIT_ASSERT_EQUAL(whole["email"].dump(), record["email"].dump());  // null for dan
    }
    const Json deals =
        listBody(*client_, token_, kDeals, "fields=value,status,expected_close_date");
    CPPUNIT_ASSERT_EQUAL(std::size_t(6), deals["data"].size());
    for (const Json& record : deals["data"].asArray()) {
      CPPUNIT_ASSERT_MESSAGE(
          record.dump(), keysOf(record) == (std::vector<std::string>{"expected_close_date", "id",
                                                                     "status", "value"}));
    }
    const Json ids = listBody(*client_, token_, kActivities, "fields=id&limit=3");
    for (const Json& record : ids["data"].asArray()) {
      CPPUNIT_ASSERT_MESSAGE(record.dump(), keysOf(record) == (std::vector<std::string>{"id"}));
    }
    const Json related = listBody(*client_, token_, kActivities, "fields=related_to,created_at");
    for (const Json& record : related["data"].asArray()) {
      CPPUNIT_ASSERT_MESSAGE(
          record.dump(),
          keysOf(record) == (std::vector<std::string>{"created_at", "id", "related_to"}));
    }
  }

  void testIncludeCompanyOnContacts() {
    const Dataset& d = dataset();
    const auto plain = records(kContacts, "sort=name");
    const auto included = records(kContacts, "sort=name&include=company");
    CPPUNIT_ASSERT_EQUAL(plain.size(), included.size());
    for (const std::string& id : d.contacts()) {
      const Json& record = included.at(id);
      const std::string company =
          record["company_id"].isNull() ? "" : record["company_id"].asString();
      assertEmbeds(record["company"], company.empty() ? "" : kCompanies + "/" + company, id);
      assertOnlyAdds(plain.at(id), record, {"company"});
    }
    CPPUNIT_ASSERT(included.at(d.dan)["company"].isNull());
  }

  // The deals of the dataset with every include, by id; `check(id, record)`
  // for each; and each record is the plain one plus the four members.
  void forEachDealWithIncludes(const std::function<void(const std::string&, const Json&)>& check) {
    const Dataset& d = dataset();
    const auto plain = records(kDeals, "sort=title");
    const auto included = records(kDeals, "sort=title&include=company,contact,pipeline,stage");
    for (const std::string& id : d.deals()) {
      check(id, included.at(id));
      assertOnlyAdds(plain.at(id), included.at(id), {"company", "contact", "pipeline", "stage"});
    }
  }
  static std::string ref(const Json& record, const std::string& field) {
    return record[field].isNull() ? std::string() : record[field].asString();
  }

  void testIncludeCompanyAndContactOnDeals() {
    const Dataset& d = dataset();
    forEachDealWithIncludes([&](const std::string& id, const Json& record) {
      const std::string company = ref(record, "company_id");
      const std::string contact = ref(record, "contact_id");
      assertEmbeds(record["company"], company.empty() ? "" : kCompanies + "/" + company, id);
      assertEmbeds(record["contact"], contact.empty() ? "" : kContacts + "/" + contact, id);
      if (id == d.audit) CPPUNIT_ASSERT(record["company"].isNull() && record["contact"].isNull());
    });
    // One include alone adds only itself.
    const auto plain = records(kDeals, "sort=title");
    const auto one = records(kDeals, "sort=title&include=contact");
    assertOnlyAdds(plain.at(d.mega), one.at(d.mega), {"contact"});
  }

  void testIncludeStageOnDeals() {
    forEachDealWithIncludes([&](const std::string& id, const Json& record) {
      assertEmbeds(
          record["stage"],
          "/v1/crm/pipelines/" + ref(record, "pipeline_id") + "/stages/" + ref(record, "stage_id"),
          id);
    });
  }

  void testIncludePipelineOnDeals() {
    forEachDealWithIncludes([&](const std::string& id, const Json& record) {
      assertEmbeds(record["pipeline"], "/v1/crm/pipelines/" + ref(record, "pipeline_id"), id);
    });
  }

  // The deal's own GET is read last: the other embeds are checked first.
  void testIncludeRelatedOnActivities() {
    const Dataset& d = dataset();
    const auto plain = records(kActivities, "sort=title");
    const auto included = records(kActivities, "sort=title&include=related");
    for (const std::string& id : d.activities()) {
      assertOnlyAdds(plain.at(id), included.at(id), {"related"});
    }
    assertEmbeds(included.at(d.callAlice)["related"], kContacts + "/" + d.alice, "callAlice");
    assertEmbeds(included.at(d.meetAcme)["related"], kCompanies + "/" + d.acme, "meetAcme");
    assertEmbeds(included.at(d.mailBob)["related"], kContacts + "/" + d.bob, "mailBob");
    assertEmbeds(included.at(d.note)["related"], "", "note");
    assertEmbeds(included.at(d.sendQuote)["related"], kDeals + "/" + d.engine, "sendQuote");
  }

  // include in the cursor form and through POST .../search.
  void testIncludeInCursorForm() {
    const Dataset& d = dataset();
    const Json body = listBody(
        *client_, token_, kContacts,
        filterParam(Json::object({{"company_id", d.acme}})) + "&sort=name&include=company&limit=1");
    CPPUNIT_ASSERT(idsOf(body) == (Ids{d.alice}));
    assertEmbeds(body["data"].asArray().at(0)["company"], kCompanies + "/" + d.acme, "alice");
    const Json searched =
        E2E_ASSERT_DATA(200, search(*client_, token_, kDeals,
                                    Json::object({{"filter", Json::object({{"status", "won"}})},
                                                  {"sort", "value"},
                                                  {"include", Json::Array{"contact"}}})));
    CPPUNIT_ASSERT(pluck(searched, "id") == (Ids{d.fleet, d.mega}));
    assertEmbeds(searched.asArray().at(0)["contact"], kContacts + "/" + d.carol, "fleet");
    assertEmbeds(searched.asArray().at(1)["contact"], kContacts + "/" + d.erin, "mega");
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(QueryShapeTest);
