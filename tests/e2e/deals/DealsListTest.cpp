// Lists of deals (decisions §1, §7): GET /crm/deals with pagination, sort and
// every filter; the sub-lists of a contact and of a CRM company (404 parents);
// unlinking when a contact or company is deleted; tenant isolation.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/deals/DealsSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::crm;

namespace {
using Ids = std::vector<std::string>;

std::string idOf(const Json& record) {
  return record["id"].asString();
}
}  // namespace

class DealsListTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(DealsListTest);
  CPPUNIT_TEST(testNewestFirstWithMetaAndPages);
  CPPUNIT_TEST(testSort);
  CPPUNIT_TEST(testFilters);
  CPPUNIT_TEST(testFilterRules);
  CPPUNIT_TEST(testSearch);
  CPPUNIT_TEST(testSubLists);
  CPPUNIT_TEST(testSubListsOfAbsentParentsAre404);
  CPPUNIT_TEST(testDeletingAContactOrCompanyUnlinksDeals);
  CPPUNIT_TEST(testOtherTenantsSeeNothing);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testNewestFirstWithMetaAndPages() {
    HttpClient client(dealsServer().port());
    const Account account = registerUser(client, "deals-list");
    const Pipeline pipeline = salesPipeline(client, account.token);
    Ids created;
    for (int i = 0; i < 5; ++i) {
      created.push_back(idOf(dealIn(client, account.token, pipeline, 0, "D" + std::to_string(i))));
    }
    const Ids newest(created.rbegin(), created.rend());
    Json body = getBody(client, account.token, "/v1/crm/deals");
    CPPUNIT_ASSERT(idsOf(body) == newest);
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":1,"per_page":20,"total":5,"last_page":1})"),
                         body["meta"].dump());
    // Full deals, as GET returns them.
    CPPUNIT_ASSERT_EQUAL(
        E2E_ASSERT_DATA(200, client.get("/v1/crm/deals/" + created[0], bearer(account.token)))
            .dump(),
        body["data"].asArray().back().dump());
    body = getBody(client, account.token, "/v1/crm/deals?per_page=2&page=2");
    CPPUNIT_ASSERT(idsOf(body) == (Ids{newest[2], newest[3]}));
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":2,"per_page":2,"total":5,"last_page":3})"),
                         body["meta"].dump());
    body = getBody(client, account.token, "/v1/crm/deals?page=9");
    CPPUNIT_ASSERT_EQUAL(std::string("[]"), body["data"].dump());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(5), body["meta"]["total"].asInt());
    CRM_ASSERT_FIELD_ERROR(client.get("/v1/crm/deals?page=0", bearer(account.token)), "page", "");
    CRM_ASSERT_FIELD_ERROR(client.get("/v1/crm/deals?per_page=101", bearer(account.token)),
                           "per_page", "");
  }

  void testSort() {
    HttpClient client(dealsServer().port());
    const Account account = registerUser(client, "deals-sort");
    const std::string& token = account.token;
    const Pipeline pipeline = salesPipeline(client, token);
    const auto add = [&](const std::string& title, std::int64_t value, const Json& close) {
      return idOf(createDeal(client, token,
                             Json::object({{"title", title},
                                           {"pipeline_id", pipeline.id},
                                           {"stage_id", pipeline.stages[0]},
                                           {"value", value},
                                           {"expected_close_date", close}})));
    };
    const std::string beta = add("beta", 300, "2027-03-01");
    const std::string alpha = add("Alpha", 100, Json());
    const std::string gamma = add("Gamma", 200, "2027-01-15");
    const auto order = [&](const std::string& sort) {
      return idsOf(getBody(client, token, "/v1/crm/deals?sort=" + sort));
    };
    CPPUNIT_ASSERT(order("title") == (Ids{alpha, beta, gamma}));
    CPPUNIT_ASSERT(order("-title") == (Ids{gamma, beta, alpha}));
    CPPUNIT_ASSERT(order("value") == (Ids{alpha, gamma, beta}));
    CPPUNIT_ASSERT(order("-value") == (Ids{beta, gamma, alpha}));
    CPPUNIT_ASSERT(order("created_at") == (Ids{beta, alpha, gamma}));
    CPPUNIT_ASSERT(order("-created_at") == (Ids{gamma, alpha, beta}));
    // Deals without an expected close date come after every date.
    CPPUNIT_ASSERT(order("expected_close_date") == (Ids{gamma, beta, alpha}));
    CPPUNIT_ASSERT(order("-expected_close_date") == (Ids{alpha, beta, gamma}));
    E2E_ASSERT_DATA(
        200, client.patch("/v1/crm/deals/" + beta, Json::object({{"value", 301}}), bearer(token)));
    CPPUNIT_ASSERT(order("-updated_at").front() == beta);
    CPPUNIT_ASSERT(order("updated_at").back() == beta);
    for (const char* bad : {"tags", "statuses", "-", "name"}) {
      CRM_ASSERT_FIELD_ERROR(client.get(std::string("/v1/crm/deals?sort=") + bad, bearer(token)),
                             "sort", "");
    }
  }

  void testFilters() {
    HttpClient client(dealsServer().port());
    const Account account = registerUser(client, "deals-filters");
    const Account colleague = registerUser(client, "deals-filters-colleague");
    const std::string& token = account.token;
    const HttpResult added =
        client.post("/v1/company/members",
                    Json::object({{"email", colleague.email}, {"role", "member"}}), bearer(token));
    if (added.status != 200) E2E_ASSERT_STATUS(201, added);
    const Pipeline sales = salesPipeline(client, token);
    const Pipeline other = createPipeline(client, token, "Other", {{"X", 5}});
    const Json contact = createContact(client, token, Json::object({{"name", "C"}}));
    const Json company = createCrmCompany(client, token, Json::object({{"name", "Co"}}));
    const std::string a = idOf(createDeal(client, token,
                                          Json::object({{"title", "A"},
                                                        {"pipeline_id", sales.id},
                                                        {"stage_id", sales.stages[0]},
                                                        {"contact_id", contact["id"]},
                                                        {"owner_id", account.userId},
                                                        {"tags", Json::Array{"VIP"}}})));
    const std::string b = idOf(createDeal(client, token,
                                          Json::object({{"title", "B"},
                                                        {"pipeline_id", sales.id},
                                                        {"stage_id", sales.stages[1]},
                                                        {"company_id", company["id"]},
                                                        {"owner_id", colleague.userId},
                                                        {"tags", Json::Array{"vip", "hot"}}})));
    const std::string c = idOf(createDeal(client, token,
                                          Json::object({{"title", "C"},
                                                        {"pipeline_id", other.id},
                                                        {"stage_id", other.stages[0]},
                                                        {"contact_id", contact["id"]},
                                                        {"company_id", company["id"]}})));
    E2E_ASSERT_DATA(200, client.post("/v1/crm/deals/" + b + "/win", Json::object(), bearer(token)));
    E2E_ASSERT_DATA(200,
                    client.post("/v1/crm/deals/" + c + "/lose", Json::object(), bearer(token)));
    const auto ids = [&](const std::string& query) {
      const Json body = getBody(client, token, "/v1/crm/deals?" + query);
      CPPUNIT_ASSERT_EQUAL_MESSAGE(query, std::int64_t(idsOf(body).size()),
                                   body["meta"]["total"].asInt());
      return idsOf(body);
    };
    CPPUNIT_ASSERT(ids("status=open") == Ids{a});
    CPPUNIT_ASSERT(ids("status=won") == Ids{b});
    CPPUNIT_ASSERT(ids("status=lost") == Ids{c});
    CPPUNIT_ASSERT(ids("pipeline_id=" + sales.id) == (Ids{b, a}));
    CPPUNIT_ASSERT(ids("pipeline_id=" + other.id) == Ids{c});
    CPPUNIT_ASSERT(ids("stage_id=" + sales.stages[1]) == Ids{b});
    CPPUNIT_ASSERT(ids("stage_id=" + sales.stages[2]).empty());
    CPPUNIT_ASSERT(ids("contact_id=" + idOf(contact)) == (Ids{c, a}));
    CPPUNIT_ASSERT(ids("company_id=" + idOf(company)) == (Ids{c, b}));
    CPPUNIT_ASSERT(ids("owner_id=" + account.userId) == Ids{a});
    CPPUNIT_ASSERT(ids("owner_id=" + colleague.userId) == Ids{b});
    CPPUNIT_ASSERT(ids("tag=vip") == (Ids{b, a}));
    CPPUNIT_ASSERT(ids("tag=HOT") == Ids{b});
    CPPUNIT_ASSERT(ids("tag=vi").empty());
    // Filters combine with AND; blank ones are ignored.
    CPPUNIT_ASSERT(ids("tag=vip&status=open") == Ids{a});
    CPPUNIT_ASSERT(ids("contact_id=" + idOf(contact) + "&pipeline_id=" + sales.id) == Ids{a});
    CPPUNIT_ASSERT(ids("status=&tag=%20") == (Ids{c, b, a}));
    CPPUNIT_ASSERT(ids("pipeline_id=pipe_missing").empty());
  }

  void testFilterRules() {
    HttpClient client(dealsServer().port());
    const Account account = registerUser(client, "deals-filter-rules");
    for (const char* bad : {"closed", "OPEN", "won,lost"}) {
      CRM_ASSERT_FIELD_ERROR(
          client.get(std::string("/v1/crm/deals?status=") + bad, bearer(account.token)), "status",
          "The selected status is invalid.");
    }
    CRM_ASSERT_FIELD_ERROR(
        client.get("/v1/crm/deals?search=" + std::string(256, 'x'), bearer(account.token)),
        "search", "The search may not be greater than 255 characters.");
  }

  void testSearch() {
    HttpClient client(dealsServer().port());
    const Account account = registerUser(client, "deals-search");
    const Pipeline pipeline = salesPipeline(client, account.token);
    const std::string engine =
        idOf(dealIn(client, account.token, pipeline, 0, "Analytical Engine"));
    const std::string loom = idOf(dealIn(client, account.token, pipeline, 0, "Jacquard loom 50%"));
    const std::string difference = idOf(dealIn(client, account.token, pipeline, 0, "Difference"));
    const auto ids = [&](const std::string& term) {
      return idsOf(getBody(client, account.token, "/v1/crm/deals?search=" + term));
    };
    CPPUNIT_ASSERT(ids("ENGINE") == Ids{engine});
    CPPUNIT_ASSERT(ids("lytic") == Ids{engine});
    CPPUNIT_ASSERT(ids("n") == (Ids{difference, engine}));  // a short term (fallback path)
    CPPUNIT_ASSERT(ids("50%25") == Ids{loom});
    CPPUNIT_ASSERT(ids("5_%25").empty());
    CPPUNIT_ASSERT(ids("nothing").empty());
    // The search follows a renamed deal.
    E2E_ASSERT_DATA(200, client.patch("/v1/crm/deals/" + loom, Json::object({{"title", "Loom"}}),
                                      bearer(account.token)));
    CPPUNIT_ASSERT(ids("Jacquard").empty());
    CPPUNIT_ASSERT(ids("loo") == Ids{loom});
  }

  void testSubLists() {
    HttpClient client(dealsServer().port());
    const Account account = registerUser(client, "deals-sublists");
    const std::string& token = account.token;
    const Pipeline pipeline = salesPipeline(client, token);
    const Json contact = createContact(client, token, Json::object({{"name", "C"}}));
    const Json otherContact = createContact(client, token, Json::object({{"name", "D"}}));
    const Json company = createCrmCompany(client, token, Json::object({{"name", "Co"}}));
    const auto add = [&](const std::string& title, const Json& contactId, const Json& companyId) {
      return createDeal(client, token,
                        Json::object({{"title", title},
                                      {"pipeline_id", pipeline.id},
                                      {"stage_id", pipeline.stages[0]},
                                      {"contact_id", contactId},
                                      {"company_id", companyId}}));
    };
    const Json first = add("First", contact["id"], company["id"]);
    const Json second = add("Second", contact["id"], Json());
    add("Elsewhere", otherContact["id"], Json());
    const Json third = add("Third", Json(), company["id"]);
    E2E_ASSERT_DATA(200, client.post(dealPath(second, "/win"), Json::object(), bearer(token)));

    const std::string ofContact = "/v1/crm/contacts/" + idOf(contact) + "/deals";
    Json body = getBody(client, token, ofContact);
    CPPUNIT_ASSERT(idsOf(body) == (Ids{idOf(second), idOf(first)}));
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":1,"per_page":20,"total":2,"last_page":1})"),
                         body["meta"].dump());
    CPPUNIT_ASSERT_EQUAL(readDeal(client, token, first).dump(), body["data"].asArray()[1].dump());
    // The list's filters, sort and pages apply inside the parent.
    CPPUNIT_ASSERT(idsOf(getBody(client, token, ofContact + "?status=won")) == Ids{idOf(second)});
    CPPUNIT_ASSERT(idsOf(getBody(client, token, ofContact + "?sort=title&per_page=1&page=2")) ==
                   Ids{idOf(second)});
    CPPUNIT_ASSERT(idsOf(getBody(client, token, ofContact + "?contact_id=" + idOf(otherContact))) ==
                   (Ids{idOf(second), idOf(first)}));
    CRM_ASSERT_FIELD_ERROR(client.get(ofContact + "?status=x", bearer(token)), "status", "");
    CRM_ASSERT_FIELD_ERROR(client.get(ofContact + "?sort=x", bearer(token)), "sort", "");

    const std::string ofCompany = "/v1/crm/companies/" + idOf(company) + "/deals";
    body = getBody(client, token, ofCompany);
    CPPUNIT_ASSERT(idsOf(body) == (Ids{idOf(third), idOf(first)}));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), body["meta"]["total"].asInt());
    CPPUNIT_ASSERT(idsOf(getBody(client, token, ofCompany + "?search=thi")) == Ids{idOf(third)});
    const Json empty = getBody(
        client, token,
        "/v1/crm/companies/" +
            idOf(createCrmCompany(client, token, Json::object({{"name", "Empty"}}))) + "/deals");
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":1,"per_page":20,"total":0,"last_page":1})"),
                         empty["meta"].dump());
  }

  void testSubListsOfAbsentParentsAre404() {
    HttpClient client(dealsServer().port());
    const Account account = registerUser(client, "deals-sublists-404");
    const Account other = registerUser(client, "deals-sublists-404-other");
    const Pipeline pipeline = salesPipeline(client, other.token);
    const Json theirContact = createContact(client, other.token, Json::object({{"name", "T"}}));
    const Json theirCompany = createCrmCompany(client, other.token, Json::object({{"name", "T"}}));
    createDeal(client, other.token,
               Json::object({{"title", "Hidden"},
                             {"pipeline_id", pipeline.id},
                             {"stage_id", pipeline.stages[0]},
                             {"contact_id", theirContact["id"]},
                             {"company_id", theirCompany["id"]}}));
    const Json mine = createContact(client, account.token, Json::object({{"name", "Mine"}}));
    for (const std::string& id :
         {std::string("cont_missing"), idOf(theirContact), idOf(theirCompany)}) {
      CRM_ASSERT_ERROR_MESSAGE(
          404, "Contact not found.",
          client.get("/v1/crm/contacts/" + id + "/deals", bearer(account.token)));
    }
    for (const std::string& id :
         {std::string("comp_missing"), idOf(theirCompany), idOf(mine), account.companyId}) {
      CRM_ASSERT_ERROR_MESSAGE(
          404, "Company not found.",
          client.get("/v1/crm/companies/" + id + "/deals", bearer(account.token)));
    }
  }

  void testDeletingAContactOrCompanyUnlinksDeals() {
    ServerProcess& server = dealsServer();
    HttpClient client(server.port());
    const Account account = registerUser(client, "deals-unlink");
    const std::string& token = account.token;
    const Pipeline pipeline = salesPipeline(client, token);
    const Json contact = createContact(client, token, Json::object({{"name", "Doomed"}}));
    const Json company = createCrmCompany(client, token, Json::object({{"name", "Doomed"}}));
    const Json keptContact = createContact(client, token, Json::object({{"name", "Kept"}}));
    const auto add = [&](const std::string& title, const Json& contactId, const Json& companyId) {
      return createDeal(client, token,
                        Json::object({{"title", title},
                                      {"pipeline_id", pipeline.id},
                                      {"stage_id", pipeline.stages[0]},
                                      {"contact_id", contactId},
                                      {"company_id", companyId},
                                      {"value", 10}}));
    };
    const Json both = add("Both", contact["id"], company["id"]);
    const Json kept = add("Kept", keptContact["id"], Json());

    E2E_ASSERT_DATA(200, client.del("/v1/crm/contacts/" + idOf(contact), bearer(token)));
    Json after = readDeal(client, token, both);
    CPPUNIT_ASSERT(after["contact_id"].isNull());
    CPPUNIT_ASSERT(after["company_id"] == company["id"]);
    CPPUNIT_ASSERT(after["updated_at"] != both["updated_at"]);
    Json expected = both;
    expected.set("contact_id", Json());
    expected.set("updated_at", after["updated_at"]);
    CPPUNIT_ASSERT_EQUAL(expected.dump(), after.dump());

    E2E_ASSERT_DATA(200, client.del("/v1/crm/companies/" + idOf(company), bearer(token)));
    after = readDeal(client, token, both);
    CPPUNIT_ASSERT(after["company_id"].isNull());
    CPPUNIT_ASSERT(after["contact_id"].isNull());
    // Unlinking records no deal event.
    CPPUNIT_ASSERT(typesOf(dealEvents(server, account.companyId, idOf(both))) ==
                   std::vector<std::string>{"crm.deal.created"});
    CPPUNIT_ASSERT_EQUAL(kept.dump(), readDeal(client, token, kept).dump());
    CPPUNIT_ASSERT_EQUAL(
        std::int64_t(0),
        getBody(client, token, "/v1/crm/deals?contact_id=" + idOf(contact))["meta"]["total"]
            .asInt());
    CRM_ASSERT_ERROR_MESSAGE(
        404, "Contact not found.",
        client.get("/v1/crm/contacts/" + idOf(contact) + "/deals", bearer(token)));
    // A deleted contact can no longer be linked.
    CRM_ASSERT_ERROR_MESSAGE(
        404, "Contact not found.",
        client.patch(dealPath(both), Json::object({{"contact_id", contact["id"]}}), bearer(token)));
  }

  void testOtherTenantsSeeNothing() {
    HttpClient client(dealsServer().port());
    const Account account = registerUser(client, "deals-tenant-a");
    const Account other = registerUser(client, "deals-tenant-b");
    const Pipeline mine = salesPipeline(client, account.token);
    const Pipeline theirs = salesPipeline(client, other.token);
    const std::string own = idOf(dealIn(client, account.token, mine, 0, "Shared title"));
    dealIn(client, other.token, theirs, 0, "Shared title");
    const auto ids = [&](const std::string& query) {
      return idsOf(getBody(client, account.token, "/v1/crm/deals" + query));
    };
    CPPUNIT_ASSERT(ids("") == Ids{own});
    CPPUNIT_ASSERT(ids("?search=shared") == Ids{own});
    CPPUNIT_ASSERT(ids("?pipeline_id=" + theirs.id).empty());
    CPPUNIT_ASSERT(ids("?stage_id=" + theirs.stages[0]).empty());
    CPPUNIT_ASSERT(ids("?owner_id=" + other.userId).empty());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1),
                         getBody(client, account.token, "/v1/crm/deals")["meta"]["total"].asInt());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(DealsListTest);
