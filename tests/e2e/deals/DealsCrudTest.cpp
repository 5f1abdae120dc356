// Deals one at a time (API Deals; decisions §1, §2, §7, §8): create, read,
// partial update, delete, their errors and references, the events they record,
// members, and the two-company isolation of every route and reference.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/deals/DealsSuite.h"
#include "rapport/ids.h"
#include "rapport/time.h"

using namespace rapport::e2e;
using namespace rapport::e2e::crm;

namespace {

// The routes of one deal, for the 401 / 404 sweeps: (method, path suffix).
const std::vector<std::pair<std::string, std::string>> kDealRoutes = {
    {"GET", ""},      {"PATCH", ""},     {"DELETE", ""},     {"PATCH", "/stage"},
    {"POST", "/win"}, {"POST", "/lose"}, {"POST", "/reopen"}};

HttpResult call(HttpClient& client, const std::string& method, const std::string& path,
                const Json& body, const Headers& headers) {
  if (method == "GET") return client.get(path, headers);
  if (method == "DELETE") return client.del(path, headers);
  if (method == "PATCH") return client.patch(path, body, headers);
  return client.post(path, body, headers);
}

}  // namespace

class DealsCrudTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(DealsCrudTest);
  CPPUNIT_TEST(testEveryRouteNeedsAToken);
  CPPUNIT_TEST(testCreateReturnsTheWholeDeal);
  CPPUNIT_TEST(testCreateDefaults);
  CPPUNIT_TEST(testFieldRules);
  CPPUNIT_TEST(testPipelineAndStageMustExist);
  CPPUNIT_TEST(testReferencesMustExist);
  CPPUNIT_TEST(testReadMissingWrongPrefixOrOtherTenantIs404);
  CPPUNIT_TEST(testPatchChangesOnlyWhatIsSent);
  CPPUNIT_TEST(testPatchRefusesStageAndStatus);
  CPPUNIT_TEST(testPatchReferences);
  CPPUNIT_TEST(testDelete);
  CPPUNIT_TEST(testEventsCarryWhatGetReturns);
  CPPUNIT_TEST(testMemberCanDoEverything);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testEveryRouteNeedsAToken() {
    HttpClient client(dealsServer().port());
    E2E_ASSERT_ERROR(401, client.get("/v1/crm/deals"));
    E2E_ASSERT_ERROR(401, client.post("/v1/crm/deals", Json::object({{"title", "x"}})));
    for (const auto& [method, suffix] : kDealRoutes) {
      E2E_ASSERT_ERROR(
          401, call(client, method, "/v1/crm/deals/deal_x" + suffix, Json::object(), Headers{}));
    }
    E2E_ASSERT_ERROR(401, client.get("/v1/crm/contacts/cont_x/deals"));
    E2E_ASSERT_ERROR(401, client.get("/v1/crm/companies/comp_x/deals"));
    E2E_ASSERT_ERROR(401, client.get("/v1/crm/deals", bearer("not-a-token")));
  }

  void testCreateReturnsTheWholeDeal() {
    HttpClient client(dealsServer().port());
    const Account account = registerUser(client, "deals-create");
    const std::string& token = account.token;
    const Pipeline pipeline = salesPipeline(client, token);
    const Json company = createCrmCompany(client, token, Json::object({{"name", "Acme"}}));
    const Json contact = createContact(client, token, Json::object({{"name", "Ada"}}));
    const Json body = Json::object({{"title", "  Engine order  "},
                                    {"pipeline_id", pipeline.id},
                                    {"stage_id", pipeline.stages[1]},
                                    {"value", 1250000},
                                    {"currency", "EUR"},
                                    {"contact_id", contact["id"]},
                                    {"company_id", company["id"]},
                                    {"owner_id", account.userId},
                                    {"expected_close_date", "2027-02-28"},
                                    {"probability", 35},
                                    {"tags", Json::Array{"Big", "q1", "big"}},
                                    {"notes", "Two engines."},
                                    {"id", "deal_chosen"},
                                    {"status", "won"},
                                    {"won_at", "2020-01-01"},
                                    {"created_at", "2000-01-01T00:00:00Z"},
                                    {"unknown", true}});
    const HttpResult result = client.post("/v1/crm/deals", body, bearer(token));
    const Json deal = E2E_ASSERT_DATA(201, result);
    E2E_ASSERT_COMMON_HEADERS(result);
    const std::vector<std::string> keys = {"id",
                                           "title",
                                           "pipeline_id",
                                           "stage_id",
                                           "status",
                                           "value",
                                           "currency",
                                           "contact_id",
                                           "company_id",
                                           "owner_id",
                                           "expected_close_date",
                                           "probability",
                                           "tags",
                                           "notes",
                                           "won_at",
                                           "lost_at",
                                           "lost_reason",
                                           "created_at",
                                           "updated_at",
                                           "custom_fields"};
    CPPUNIT_ASSERT_EQUAL_MESSAGE(deal.dump(), keys.size(), deal.size());
    std::size_t index = 0;
    for (const auto& [key, value] : deal.asObject()) CPPUNIT_ASSERT_EQUAL(keys[index++], key);
    CPPUNIT_ASSERT(rapport::hasPrefix(deal["id"].asString(), "deal_"));
    CPPUNIT_ASSERT(deal["id"].asString() != "deal_chosen");
    CPPUNIT_ASSERT_EQUAL(std::string("Engine order"), deal["title"].asString());
    CPPUNIT_ASSERT_EQUAL(pipeline.id, deal["pipeline_id"].asString());
    CPPUNIT_ASSERT_EQUAL(pipeline.stages[1], deal["stage_id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("open"), deal["status"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1250000), deal["value"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::string("EUR"), deal["currency"].asString());
    CPPUNIT_ASSERT(deal["contact_id"] == contact["id"]);
    CPPUNIT_ASSERT(deal["company_id"] == company["id"]);
    CPPUNIT_ASSERT_EQUAL(account.userId, deal["owner_id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("2027-02-28"), deal["expected_close_date"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(35), deal["probability"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::string(R"(["Big","q1"])"), deal["tags"].dump());
    CPPUNIT_ASSERT_EQUAL(std::string("Two engines."), deal["notes"].asString());
    for (const char* key : {"won_at", "lost_at", "lost_reason"}) {
      CPPUNIT_ASSERT_MESSAGE(key, deal[key].isNull());
    }
    CPPUNIT_ASSERT(E2E_ASSERT_ISO_UTC(deal["created_at"]) > unixNow() - 60);
    CPPUNIT_ASSERT(deal["created_at"] == deal["updated_at"]);
    CPPUNIT_ASSERT_EQUAL(deal.dump(), readDeal(client, token, deal).dump());
  }

  void testCreateDefaults() {
    HttpClient client(dealsServer().port());
    const Account account = registerUser(client, "deals-defaults");
    const Pipeline pipeline = salesPipeline(client, account.token);
    const Json deal = createDeal(client, account.token,
                                 Json::object({{"title", "Minimal"},
                                               {"pipeline_id", pipeline.id},
                                               {"stage_id", pipeline.stages[2]}}));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), deal["value"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::string("USD"), deal["currency"].asString());
    // The probability defaults to the stage's.
    CPPUNIT_ASSERT_EQUAL(std::int64_t(90), deal["probability"].asInt());
    for (const char* key : {"contact_id", "company_id", "owner_id", "expected_close_date", "notes",
                            "won_at", "lost_at", "lost_reason"}) {
      CPPUNIT_ASSERT_MESSAGE(key, deal[key].isNull());
    }
    CPPUNIT_ASSERT_EQUAL(std::string("[]"), deal["tags"].dump());
    // Null value, currency and probability read as their defaults; blank notes as null.
    const Json nulls = createDeal(client, account.token,
                                  Json::object({{"title", "Nulls"},
                                                {"pipeline_id", pipeline.id},
                                                {"stage_id", pipeline.stages[0]},
                                                {"value", Json()},
                                                {"currency", Json()},
                                                {"probability", Json()},
                                                {"notes", "  "}}));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), nulls["value"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::string("USD"), nulls["currency"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(10), nulls["probability"].asInt());
    CPPUNIT_ASSERT(nulls["notes"].isNull());
    const Json zero = createDeal(client, account.token,
                                 Json::object({{"title", "Zero"},
                                               {"pipeline_id", pipeline.id},
                                               {"stage_id", pipeline.stages[2]},
                                               {"probability", 0}}));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), zero["probability"].asInt());
  }

  void testFieldRules() {
    HttpClient client(dealsServer().port());
    const Account account = registerUser(client, "deals-rules");
    const Pipeline pipeline = salesPipeline(client, account.token);
    const auto post = [&](const std::string& key, const Json& value) {
      Json body = Json::object(
          {{"title", "Rules"}, {"pipeline_id", pipeline.id}, {"stage_id", pipeline.stages[0]}});
      body.set(key, value);
      return client.post("/v1/crm/deals", body, bearer(account.token));
    };
    CRM_ASSERT_FIELD_ERROR(post("title", Json()), "title", "The title field is required.");
    CRM_ASSERT_FIELD_ERROR(post("title", "   "), "title", "The title field is required.");
    CRM_ASSERT_FIELD_ERROR(post("title", std::string(256, 'x')), "title", "");
    CRM_ASSERT_FIELD_ERROR(post("title", 5), "title", "The title must be a string.");
    CRM_ASSERT_FIELD_ERROR(post("pipeline_id", Json()), "pipeline_id",
                           "The pipeline_id field is required.");
    CRM_ASSERT_FIELD_ERROR(post("stage_id", Json()), "stage_id", "The stage_id field is required.");
    CRM_ASSERT_FIELD_ERROR(post("value", -1), "value", "The value must be at least 0.");
    CRM_ASSERT_FIELD_ERROR(post("value", 1.5), "value", "The value must be an integer.");
    CRM_ASSERT_FIELD_ERROR(post("value", "100"), "value", "The value must be an integer.");
    CRM_ASSERT_FIELD_ERROR(post("value", 1000000000001LL), "value",
                           "The value may not be greater than 1000000000000.");
    for (const char* bad : {"usd", "US", "USDX", "U1D", ""}) {
      const HttpResult result = post("currency", bad);
      if (std::string(bad).empty()) {
        // A blank currency is not a code either.
        CRM_ASSERT_FIELD_ERROR(result, "currency", "");
      } else {
        CRM_ASSERT_FIELD_ERROR(result, "currency",
                               "The currency must be a 3-letter upper-case code.");
      }
    }
    CRM_ASSERT_FIELD_ERROR(post("probability", 101), "probability",
                           "The probability may not be greater than 100.");
    CRM_ASSERT_FIELD_ERROR(post("probability", -1), "probability",
                           "The probability must be at least 0.");
    CRM_ASSERT_FIELD_ERROR(post("expected_close_date", "2027-02-30"), "expected_close_date",
                           "The expected_close_date is not a valid date.");
    CRM_ASSERT_FIELD_ERROR(post("expected_close_date", "tomorrow"), "expected_close_date", "");
    CRM_ASSERT_FIELD_ERROR(post("tags", "vip"), "tags", "The tags must be an array.");
    CRM_ASSERT_FIELD_ERROR(post("notes", std::string(10001, 'n')), "notes", "");
    CRM_ASSERT_FIELD_ERROR(post("contact_id", 7), "contact_id", "");
    // Every field at fault is named at once; nothing was written.
    const Json body = E2E_ASSERT_ERROR(
        422, client.post("/v1/crm/deals", Json::object({{"value", -5}, {"probability", 200}}),
                         bearer(account.token)));
    for (const char* key : {"title", "pipeline_id", "stage_id", "value", "probability"}) {
      CPPUNIT_ASSERT_MESSAGE(key, body["errors"].contains(key));
    }
    E2E_ASSERT_ERROR(400,
                     client.send("POST", "/v1/crm/deals", std::string("[1]"),
                                 bearer(account.token, {{"Content-Type", "application/json"}})));
    E2E_ASSERT_ERROR(400,
                     client.send("POST", "/v1/crm/deals", std::string("{"),
                                 bearer(account.token, {{"Content-Type", "application/json"}})));
    const Json list = getBody(client, account.token, "/v1/crm/deals");
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), list["meta"]["total"].asInt());
  }

  void testPipelineAndStageMustExist() {
    HttpClient client(dealsServer().port());
    const Account account = registerUser(client, "deals-refs");
    const Account other = registerUser(client, "deals-refs-other");
    const Pipeline mine = salesPipeline(client, account.token);
    const Pipeline second = createPipeline(client, account.token, "Second", {{"Only", 20}});
    const Pipeline theirs = salesPipeline(client, other.token);
    const auto post = [&](const std::string& pipelineId, const std::string& stageId) {
      return client.post(
          "/v1/crm/deals",
          Json::object({{"title", "T"}, {"pipeline_id", pipelineId}, {"stage_id", stageId}}),
          bearer(account.token));
    };
    for (const std::string& id : {std::string("pipe_missing"), theirs.id, mine.stages[0]}) {
      CRM_ASSERT_ERROR_MESSAGE(404, "Pipeline not found.", post(id, mine.stages[0]));
    }
    for (const std::string& id : {std::string("stg_missing"), theirs.stages[0], mine.id}) {
      CRM_ASSERT_ERROR_MESSAGE(404, "Stage not found.", post(mine.id, id));
    }
    CRM_ASSERT_FIELD_ERROR(post(mine.id, second.stages[0]), "stage_id",
                           "The stage does not belong to the pipeline.");
    CRM_ASSERT_FIELD_ERROR(post(second.id, mine.stages[1]), "stage_id",
                           "The stage does not belong to the pipeline.");
    // The order of refusals (docs/api-choices.md): every reference is
    // checked before the module's rule across them, so a missing contact
    // answers before a stage of another pipeline.
    CRM_ASSERT_ERROR_MESSAGE(404, "Contact not found.",
                             client.post("/v1/crm/deals",
                                         Json::object({{"title", "T"},
                                                       {"pipeline_id", mine.id},
                                                       {"stage_id", second.stages[0]},
                                                       {"contact_id", "cont_missing"}}),
                                         bearer(account.token)));
    const Json list = getBody(client, account.token, "/v1/crm/deals");
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), list["meta"]["total"].asInt());
  }

  void testReferencesMustExist() {
    HttpClient client(dealsServer().port());
    const Account account = registerUser(client, "deals-links");
    const Account other = registerUser(client, "deals-links-other");
    const Pipeline pipeline = salesPipeline(client, account.token);
    const Json theirContact = createContact(client, other.token, Json::object({{"name", "T"}}));
    const Json theirCompany = createCrmCompany(client, other.token, Json::object({{"name", "T"}}));
    const auto post = [&](const std::string& key, const std::string& value) {
      return client.post("/v1/crm/deals",
                         Json::object({{"title", "T"},
                                       {"pipeline_id", pipeline.id},
                                       {"stage_id", pipeline.stages[0]},
                                       {key, value}}),
                         bearer(account.token));
    };
    // Missing, another tenant's, or another kind of record: the same 404.
    for (const std::string& id : {std::string("cont_missing"), theirContact["id"].asString()}) {
      CRM_ASSERT_ERROR_MESSAGE(404, "Contact not found.", post("contact_id", id));
    }
    for (const std::string& id :
         {std::string("comp_missing"), theirCompany["id"].asString(), account.companyId}) {
      CRM_ASSERT_ERROR_MESSAGE(404, "Company not found.", post("company_id", id));
    }
    for (const std::string& id : {std::string("user_missing"), other.userId}) {
      CRM_ASSERT_ERROR_MESSAGE(404, "Owner not found.", post("owner_id", id));
    }
    const Json list = getBody(client, account.token, "/v1/crm/deals");
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), list["meta"]["total"].asInt());
  }

  void testReadMissingWrongPrefixOrOtherTenantIs404() {
    HttpClient client(dealsServer().port());
    const Account account = registerUser(client, "deals-404");
    const Account other = registerUser(client, "deals-404-other");
    const Pipeline pipeline = salesPipeline(client, other.token);
    const Json theirs = dealIn(client, other.token, pipeline, 0, "Theirs", 500);
    const Json contact = createContact(client, account.token, Json::object({{"name", "C"}}));
    // Bodies every route would accept for a deal of the caller's.
    const Json patch = Json::object({{"title", "Hijack"}});
    const Json move = Json::object({{"stage_id", pipeline.stages[1]}});
    for (const std::string& id : {std::string("deal_missing"), theirs["id"].asString(),
                                  contact["id"].asString(), std::string("deal_")}) {
      for (const auto& [method, suffix] : kDealRoutes) {
        CRM_ASSERT_ERROR_MESSAGE(404, "Deal not found.",
                                 call(client, method, "/v1/crm/deals/" + id + suffix,
                                      suffix == "/stage" ? move : patch, bearer(account.token)));
      }
    }
    // The other tenant's deal is untouched.
    CPPUNIT_ASSERT_EQUAL(theirs.dump(), readDeal(client, other.token, theirs).dump());
  }

  void testPatchChangesOnlyWhatIsSent() {
    ServerProcess& server = dealsServer();
    HttpClient client(server.port());
    const Account account = registerUser(client, "deals-patch");
    const std::string& token = account.token;
    const Pipeline pipeline = salesPipeline(client, token);
    const Json deal = createDeal(client, token,
                                 Json::object({{"title", "Patch me"},
                                               {"pipeline_id", pipeline.id},
                                               {"stage_id", pipeline.stages[1]},
                                               {"value", 100},
                                               {"currency", "GBP"},
                                               {"expected_close_date", "2027-01-01"},
                                               {"tags", Json::Array{"a"}},
                                               {"notes", "n"}}));
    const Json patched = E2E_ASSERT_DATA(
        200, client.patch(dealPath(deal), Json::object({{"title", " New title "}, {"value", 250}}),
                          bearer(token)));
    Json expected = deal;
    expected.set("title", "New title");
    expected.set("value", 250);
    expected.set("updated_at", patched["updated_at"]);
    CPPUNIT_ASSERT_EQUAL(expected.dump(), patched.dump());
    CPPUNIT_ASSERT(patched["updated_at"] != deal["updated_at"]);

    // Nulls clear optional fields and restore defaults; the probability goes
    // back to the stage's.
    const Json cleared =
        E2E_ASSERT_DATA(200, client.patch(dealPath(deal),
                                          Json::object({{"value", Json()},
                                                        {"currency", Json()},
                                                        {"expected_close_date", Json()},
                                                        {"probability", Json()},
                                                        {"tags", Json()},
                                                        {"notes", Json()}}),
                                          bearer(token)));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), cleared["value"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::string("USD"), cleared["currency"].asString());
    CPPUNIT_ASSERT(cleared["expected_close_date"].isNull());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(50), cleared["probability"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::string("[]"), cleared["tags"].dump());
    CPPUNIT_ASSERT(cleared["notes"].isNull());
    CPPUNIT_ASSERT_EQUAL(std::string("New title"), cleared["title"].asString());

    const Json set =
        E2E_ASSERT_DATA(200, client.patch(dealPath(deal),
                                          Json::object({{"probability", 77},
                                                        {"currency", "JPY"},
                                                        {"expected_close_date", "2028-02-29"},
                                                        {"tags", Json::Array{"x", "X", "y"}}}),
                                          bearer(token)));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(77), set["probability"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::string("JPY"), set["currency"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("2028-02-29"), set["expected_close_date"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string(R"(["x","y"])"), set["tags"].dump());

    // Nothing changeable: the deal as it is, no write, no event.
    const std::size_t events = dealEvents(server, account.companyId, deal["id"].asString()).size();
    const Json same = E2E_ASSERT_DATA(
        200,
        client.patch(dealPath(deal), Json::object({{"id", "deal_x"}, {"won_at", "2020-01-01"}}),
                     bearer(token)));
    CPPUNIT_ASSERT_EQUAL(set.dump(), same.dump());
    CPPUNIT_ASSERT_EQUAL(events,
                         dealEvents(server, account.companyId, deal["id"].asString()).size());

    CRM_ASSERT_FIELD_ERROR(
        client.patch(dealPath(deal), Json::object({{"title", Json()}}), bearer(token)), "title",
        "The title field is required.");
    CRM_ASSERT_FIELD_ERROR(
        client.patch(dealPath(deal), Json::object({{"title", ""}}), bearer(token)), "title",
        "The title field is required.");
    CRM_ASSERT_FIELD_ERROR(
        client.patch(dealPath(deal), Json::object({{"currency", "eur"}}), bearer(token)),
        "currency", "The currency must be a 3-letter upper-case code.");
    CRM_ASSERT_FIELD_ERROR(
        client.patch(dealPath(deal), Json::object({{"probability", 101}}), bearer(token)),
        "probability", "The probability may not be greater than 100.");
    CPPUNIT_ASSERT_EQUAL(set.dump(), readDeal(client, token, deal).dump());
  }

  void testPatchRefusesStageAndStatus() {
    HttpClient client(dealsServer().port());
    const Account account = registerUser(client, "deals-patch-refuse");
    const Pipeline pipeline = salesPipeline(client, account.token);
    const Json deal = dealIn(client, account.token, pipeline, 0, "Refuse");
    const std::string move = "Use PATCH /crm/deals/{id}/stage to move a deal.";
    const std::string status = "Use win, lose or reopen to change the status.";
    CRM_ASSERT_FIELD_ERROR(
        client.patch(dealPath(deal), Json::object({{"stage_id", pipeline.stages[1]}}),
                     bearer(account.token)),
        "stage_id", move);
    // Even the current values are refused.
    CRM_ASSERT_FIELD_ERROR(
        client.patch(dealPath(deal), Json::object({{"pipeline_id", pipeline.id}}),
                     bearer(account.token)),
        "pipeline_id", move);
    CRM_ASSERT_FIELD_ERROR(
        client.patch(dealPath(deal), Json::object({{"status", "won"}}), bearer(account.token)),
        "status", status);
    const Json body = E2E_ASSERT_ERROR(
        422, client.patch(dealPath(deal),
                          Json::object({{"title", "ok"}, {"status", "open"}, {"stage_id", Json()}}),
                          bearer(account.token)));
    CPPUNIT_ASSERT(body["errors"].contains("status"));
    CPPUNIT_ASSERT(body["errors"].contains("stage_id"));
    CPPUNIT_ASSERT_EQUAL(deal.dump(), readDeal(client, account.token, deal).dump());
  }

  void testPatchReferences() {
    HttpClient client(dealsServer().port());
    const Account account = registerUser(client, "deals-patch-links");
    const Account other = registerUser(client, "deals-patch-links-other");
    const std::string& token = account.token;
    const Pipeline pipeline = salesPipeline(client, token);
    const Json deal = dealIn(client, token, pipeline, 0, "Links");
    const Json contact = createContact(client, token, Json::object({{"name", "C"}}));
    const Json company = createCrmCompany(client, token, Json::object({{"name", "Co"}}));
    const Json linked =
        E2E_ASSERT_DATA(200, client.patch(dealPath(deal),
                                          Json::object({{"contact_id", contact["id"]},
                                                        {"company_id", company["id"]},
                                                        {"owner_id", account.userId}}),
                                          bearer(token)));
    CPPUNIT_ASSERT(linked["contact_id"] == contact["id"]);
    CPPUNIT_ASSERT(linked["company_id"] == company["id"]);
    CPPUNIT_ASSERT_EQUAL(account.userId, linked["owner_id"].asString());

    const Json theirContact = createContact(client, other.token, Json::object({{"name", "T"}}));
    const Json theirCompany = createCrmCompany(client, other.token, Json::object({{"name", "T"}}));
    CRM_ASSERT_ERROR_MESSAGE(
        404, "Contact not found.",
        client.patch(dealPath(deal), Json::object({{"contact_id", theirContact["id"]}}),
                     bearer(token)));
    CRM_ASSERT_ERROR_MESSAGE(
        404, "Company not found.",
        client.patch(dealPath(deal), Json::object({{"company_id", theirCompany["id"]}}),
                     bearer(token)));
    CRM_ASSERT_ERROR_MESSAGE(
        404, "Owner not found.",
        client.patch(dealPath(deal), Json::object({{"owner_id", other.userId}}), bearer(token)));
    CPPUNIT_ASSERT_EQUAL(linked.dump(), readDeal(client, token, deal).dump());

    const Json unlinked = E2E_ASSERT_DATA(
        200,
        client.patch(
            dealPath(deal),
            Json::object({{"contact_id", Json()}, {"company_id", Json()}, {"owner_id", Json()}}),
            bearer(token)));
    for (const char* key : {"contact_id", "company_id", "owner_id"}) {
      CPPUNIT_ASSERT_MESSAGE(key, unlinked[key].isNull());
    }
  }

  void testDelete() {
    ServerProcess& server = dealsServer();
    HttpClient client(server.port());
    const Account account = registerUser(client, "deals-delete");
    const Pipeline pipeline = salesPipeline(client, account.token);
    const Json deal = dealIn(client, account.token, pipeline, 0, "Doomed");
    const Json kept = dealIn(client, account.token, pipeline, 0, "Kept");
    const Json data = E2E_ASSERT_DATA(200, client.del(dealPath(deal), bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(Json::object({{"id", deal["id"]}}).dump(), data.dump());
    CRM_ASSERT_ERROR_MESSAGE(404, "Deal not found.",
                             client.get(dealPath(deal), bearer(account.token)));
    CRM_ASSERT_ERROR_MESSAGE(404, "Deal not found.",
                             client.del(dealPath(deal), bearer(account.token)));
    const Json list = getBody(client, account.token, "/v1/crm/deals");
    CPPUNIT_ASSERT(idsOf(list) == std::vector<std::string>{kept["id"].asString()});
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), list["meta"]["total"].asInt());
    const auto events =
        eventsAbout(server, account.companyId, "crm.deal.deleted", deal["id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), events.size());
    CPPUNIT_ASSERT_EQUAL(Json::object({{"id", deal["id"]}}).dump(), events.front().dump());
  }

  void testEventsCarryWhatGetReturns() {
    ServerProcess& server = dealsServer();
    HttpClient client(server.port());
    const Account account = registerUser(client, "deals-events");
    const std::string& token = account.token;
    const Pipeline pipeline = salesPipeline(client, token);
    const Json deal = dealIn(client, token, pipeline, 0, "Evented", 10);
    const std::string id = deal["id"].asString();
    const Json updated = E2E_ASSERT_DATA(
        200, client.patch(dealPath(deal), Json::object({{"value", 20}}), bearer(token)));
    const auto events = dealEvents(server, account.companyId, id);
    CPPUNIT_ASSERT(typesOf(events) ==
                   (std::vector<std::string>{"crm.deal.created", "crm.deal.updated"}));
    CPPUNIT_ASSERT_EQUAL(deal.dump(), events[0].second.dump());
    CPPUNIT_ASSERT_EQUAL(updated.dump(), events[1].second.dump());
    CPPUNIT_ASSERT_EQUAL(updated.dump(), readDeal(client, token, deal).dump());
    // A refused change records nothing.
    client.patch(dealPath(deal), Json::object({{"value", -1}}), bearer(token));
    client.post("/v1/crm/deals",
                Json::object({{"title", "x"}, {"pipeline_id", "pipe_x"}, {"stage_id", "stg_x"}}),
                bearer(token));
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), dealEvents(server, account.companyId, id).size());
  }

  // Decisions §2: any member may work with deals.
  void testMemberCanDoEverything() {
    HttpClient client(dealsServer().port());
    const Account owner = registerUser(client, "deals-owner");
    const Account member = registerUser(client, "deals-member");
    const HttpResult added = client.post(
        "/v1/company/members", Json::object({{"email", member.email}, {"role", "member"}}),
        bearer(owner.token));
    if (added.status != 200) E2E_ASSERT_STATUS(201, added);
    const std::string token = switchContext(client, member.token, owner.companyId);
    const Pipeline pipeline = salesPipeline(client, owner.token);
    const Json contact = createContact(client, token, Json::object({{"name", "C"}}));
    const Json company = createCrmCompany(client, token, Json::object({{"name", "Co"}}));
    const Json deal = createDeal(client, token,
                                 Json::object({{"title", "By a member"},
                                               {"pipeline_id", pipeline.id},
                                               {"stage_id", pipeline.stages[0]},
                                               {"contact_id", contact["id"]},
                                               {"company_id", company["id"]},
                                               {"owner_id", member.userId}}));
    readDeal(client, token, deal);
    E2E_ASSERT_DATA(200, client.get("/v1/crm/deals", bearer(token)));
    E2E_ASSERT_DATA(
        200, client.get("/v1/crm/contacts/" + contact["id"].asString() + "/deals", bearer(token)));
    E2E_ASSERT_DATA(
        200, client.get("/v1/crm/companies/" + company["id"].asString() + "/deals", bearer(token)));
    E2E_ASSERT_DATA(200, client.patch(dealPath(deal), Json::object({{"value", 5}}), bearer(token)));
    E2E_ASSERT_DATA(200,
                    client.patch(dealPath(deal, "/stage"),
                                 Json::object({{"stage_id", pipeline.stages[1]}}), bearer(token)));
    E2E_ASSERT_DATA(200, client.post(dealPath(deal, "/win"), Json::object(), bearer(token)));
    E2E_ASSERT_DATA(200, client.post(dealPath(deal, "/reopen"), Json::object(), bearer(token)));
    E2E_ASSERT_DATA(200, client.post(dealPath(deal, "/lose"), Json::object(), bearer(token)));
    E2E_ASSERT_DATA(200, client.del(dealPath(deal), bearer(token)));
    // Reading pipelines is open to members too (their counters included).
    E2E_ASSERT_DATA(200, client.get("/v1/crm/pipelines/" + pipeline.id, bearer(token)));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(DealsCrudTest);
