// Who may call the CRM routes (decisions §2). A plain `member` works with
// contacts, CRM companies, deals and activities (every route, the sub-lists
// included) and reads pipelines and stages; creating, changing or deleting a
// pipeline or a stage answers 403 "No permission." and changes nothing, while
// an admin may. Once the owner removes the member from the company
// (DELETE /company/members/{user_id}), the member's token for it answers 401
// on every one of those routes and changes nothing either.
//
// Table-driven: one row per route (method, path, body, the member's status),
// on records the owner created first: a pipeline with stages, CRM companies,
// contacts, deals and activities. The rows run in order; each one that
// changes state leaves what the next ones need (win before reopen, ...).
#include <cppunit/extensions/HelperMacros.h>

#include <optional>
#include <string>
#include <vector>

#include "e2e/common/CallTable.h"
#include "e2e/companies/CrmApi.h"

using namespace rapport::e2e;
using namespace rapport::e2e::crm;

namespace {

ServerProcess& rolesServer() {
  static ServerProcess server(crmSettings("contacts,companies,pipelines,deals,activities"));
  return server;
}

// Every 403 of these tables is the role's: "No permission.".
#define ROLES_RUN_TABLE(client, token, table) \
  E2E_RUN_TABLE((client), (token), withMessage((table), 403, "No permission."))

// The same calls, each expecting `status` instead.
std::vector<Call> expecting(std::vector<Call> table, int status) {
  for (Call& call : table) call.status = status;
  return table;
}

// The owner's records the table works on (the *Gone ones are deleted by
// the table's DELETE rows), and a plain member of the owner's company.
struct World : CrmRecords {
  Account owner;
  Account member;
  std::string memberToken;  // the member's token for the owner's company
};

World buildWorld(HttpClient& client, const std::string& label) {
  World w;
  w.owner = registerUser(client, label + "-owner");
  w.member = registerUser(client, label + "-member");
  E2E_ASSERT_DATA(201, client.post("/v1/company/members",
                                   Json::object({{"email", w.member.email}, {"role", "member"}}),
                                   bearer(w.owner.token)));
  w.memberToken = switchContext(client, w.member.token, w.owner.companyId);
  static_cast<CrmRecords&>(w) = createCrmRecords(client, w.owner.token);
  CPPUNIT_ASSERT_EQUAL(std::size_t{3}, w.stages.size());
  return w;
}

// Every route of contacts and their sub-lists, as a member may call them.
std::vector<Call> contactCalls(const World& w) {
  const std::string one = "/v1/crm/contacts/" + w.contact;
  return {
      {"GET", "/v1/crm/contacts", std::nullopt, 200},
      {"POST", "/v1/crm/contacts",
       Json::object({{"name", "By the member"}, {"company_id", w.company}}), 201},
      {"GET", one, std::nullopt, 200},
      {"PATCH", one, Json::object({{"job_title", "Analyst"}}), 200},
      {"GET", one + "/deals", std::nullopt, 200},
      {"GET", one + "/activities", std::nullopt, 200},
      {"DELETE", "/v1/crm/contacts/" + w.contactGone, std::nullopt, 200},
  };
}

// Every route of CRM companies and their sub-lists.
std::vector<Call> companyCalls(const World& w) {
  const std::string one = "/v1/crm/companies/" + w.company;
  return {
      {"GET", "/v1/crm/companies", std::nullopt, 200},
      {"POST", "/v1/crm/companies", Json::object({{"name", "Member Ltd"}}), 201},
      {"GET", one, std::nullopt, 200},
      {"PATCH", one, Json::object({{"industry", "Software"}}), 200},
      {"GET", one + "/contacts", std::nullopt, 200},
      {"GET", one + "/deals", std::nullopt, 200},
      {"DELETE", "/v1/crm/companies/" + w.companyGone, std::nullopt, 200},
  };
}

// Every route of deals, each transition once (win, reopen, lose, reopen).
std::vector<Call> dealCalls(const World& w) {
  const std::string one = "/v1/crm/deals/" + w.deal;
  return {
      {"GET", "/v1/crm/deals", std::nullopt, 200},
      {"POST", "/v1/crm/deals",
       Json::object({{"title", "Member's deal"},
                     {"pipeline_id", w.pipeline},
                     {"stage_id", w.stages[0]},
                     {"contact_id", w.contact},
                     {"company_id", w.company}}),
       201},
      {"GET", one, std::nullopt, 200},
      {"PATCH", one, Json::object({{"title", "Bigger deal"}, {"value", 250000}}), 200},
      {"PATCH", one + "/stage", Json::object({{"stage_id", w.stages[1]}}), 200},
      {"POST", one + "/win", Json::object(), 200},
      {"POST", one + "/reopen", Json::object(), 200},
      {"POST", one + "/lose", Json::object({{"reason", "Budget"}}), 200},
      {"POST", one + "/reopen", Json::object(), 200},
      {"GET", one + "/activities", std::nullopt, 200},
      {"DELETE", "/v1/crm/deals/" + w.dealGone, std::nullopt, 200},
  };
}

// Every route of activities, each transition once (complete, reopen).
std::vector<Call> activityCalls(const World& w) {
  const std::string one = "/v1/crm/activities/" + w.activity;
  return {
      {"GET", "/v1/crm/activities", std::nullopt, 200},
      {"POST", "/v1/crm/activities",
       Json::object({{"type", "task"},
                     {"title", "Send the offer"},
                     {"related_to", Json::object({{"type", "contact"}, {"id", w.contact}})}}),
       201},
      {"GET", one, std::nullopt, 200},
      {"PATCH", one, Json::object({{"title", "Call Ada back"}}), 200},
      {"POST", one + "/complete", Json::object(), 200},
      {"POST", one + "/reopen", Json::object(), 200},
      {"DELETE", "/v1/crm/activities/" + w.activityGone, std::nullopt, 200},
  };
}

// The read routes of pipelines and stages.
std::vector<Call> pipelineReads(const World& w) {
  const std::string one = "/v1/crm/pipelines/" + w.pipeline;
  return {
      {"GET", "/v1/crm/pipelines", std::nullopt, 200},
      {"GET", one, std::nullopt, 200},
      {"GET", one + "/stages", std::nullopt, 200},
      {"GET", one + "/stages/" + w.stages[0], std::nullopt, 200},
  };
}

// The write routes of pipelines and stages, with bodies that an owner's
// call would accept; `status` is what the caller expects of them.
std::vector<Call> pipelineWrites(const std::string& pipeline,
                                 const std::vector<std::string>& stages, int status) {
  const std::string one = "/v1/crm/pipelines/" + pipeline;
  Json::Array reversed;
  for (std::size_t i = 0; i < stages.size(); ++i) {
    reversed.push_back(
        Json::object({{"id", stages[stages.size() - 1 - i]}, {"order", static_cast<int>(i + 1)}}));
  }
  return {
      {"POST", "/v1/crm/pipelines",
       Json::object(
           {{"name", "Renewals"}, {"stages", Json::Array{Json::object({{"name", "Due"}})}}}),
       status == 200 ? 201 : status},
      {"PATCH", one, Json::object({{"name", "Renamed"}}), status},
      // Before the new stage: reorder names every stage of the pipeline.
      {"PATCH", one + "/stages/reorder", Json::object({{"stages", reversed}}), status},
      {"POST", one + "/stages", Json::object({{"name", "Extra"}, {"probability", 70}}),
       status == 200 ? 201 : status},
      {"PATCH", one + "/stages/" + stages.front(), Json::object({{"name", "Renamed stage"}}),
       status},
      {"DELETE", one + "/stages/" + stages.back(), std::nullopt, status},
      {"DELETE", one, std::nullopt, status},
  };
}

// What a pipeline change would alter: the pipelines' names and defaults, and
// each one's stages (id, name, order, probability), counters left out.
Json pipelineShapes(HttpClient& client, const std::string& token) {
  Json::Array out;
  const Json list = getBody(client, token, "/v1/crm/pipelines");
  for (const Json& pipeline : list["data"].asArray()) {
    Json::Array stages;
    for (const Json& stage : pipeline["stages"].asArray()) {
      stages.push_back(Json::object({{"id", stage["id"]},
                                     {"name", stage["name"]},
                                     {"order", stage["order"]},
                                     {"probability", stage["probability"]}}));
    }
    out.push_back(Json::object({{"id", pipeline["id"]},
                                {"name", pipeline["name"]},
                                {"is_default", pipeline["is_default"]},
                                {"stages", stages}}));
  }
  return Json(out);
}

}  // namespace

class RolesTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(RolesTest);
  CPPUNIT_TEST(testMemberWorksWithContacts);
  CPPUNIT_TEST(testMemberWorksWithCompanies);
  CPPUNIT_TEST(testMemberWorksWithDeals);
  CPPUNIT_TEST(testMemberWorksWithActivities);
  CPPUNIT_TEST(testMemberReadsPipelinesButCannotChangeThem);
  CPPUNIT_TEST(testAdminChangesPipelines);
  CPPUNIT_TEST(testRemovedMemberIs401Everywhere);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testMemberWorksWithContacts() {
    HttpClient client(rolesServer().port());
    const World w = buildWorld(client, "roles-contacts");
    ROLES_RUN_TABLE(client, w.memberToken, contactCalls(w));
    // The member's changes are the company's: the owner sees them.
    const Json contact = getBody(client, w.owner.token, "/v1/crm/contacts/" + w.contact)["data"];
    CPPUNIT_ASSERT_EQUAL(std::string("Analyst"), contact["job_title"].asString());
    E2E_ASSERT_ERROR(404, client.get("/v1/crm/contacts/" + w.contactGone, bearer(w.owner.token)));
  }

  void testMemberWorksWithCompanies() {
    HttpClient client(rolesServer().port());
    const World w = buildWorld(client, "roles-companies");
    ROLES_RUN_TABLE(client, w.memberToken, companyCalls(w));
    const Json company = getBody(client, w.owner.token, "/v1/crm/companies/" + w.company)["data"];
    CPPUNIT_ASSERT_EQUAL(std::string("Software"), company["industry"].asString());
    E2E_ASSERT_ERROR(404, client.get("/v1/crm/companies/" + w.companyGone, bearer(w.owner.token)));
  }

  void testMemberWorksWithDeals() {
    HttpClient client(rolesServer().port());
    const World w = buildWorld(client, "roles-deals");
    ROLES_RUN_TABLE(client, w.memberToken, dealCalls(w));
    const Json deal = getBody(client, w.owner.token, "/v1/crm/deals/" + w.deal)["data"];
    CPPUNIT_ASSERT_EQUAL(std::string("Bigger deal"), deal["title"].asString());
    CPPUNIT_ASSERT_EQUAL(w.stages[1], deal["stage_id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("open"), deal["status"].asString());
    E2E_ASSERT_ERROR(404, client.get("/v1/crm/deals/" + w.dealGone, bearer(w.owner.token)));
  }

  void testMemberWorksWithActivities() {
    HttpClient client(rolesServer().port());
    const World w = buildWorld(client, "roles-activities");
    ROLES_RUN_TABLE(client, w.memberToken, activityCalls(w));
    const Json activity =
        getBody(client, w.owner.token, "/v1/crm/activities/" + w.activity)["data"];
    CPPUNIT_ASSERT_EQUAL(std::string("Call Ada back"), activity["title"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("pending"), activity["status"].asString());
    E2E_ASSERT_ERROR(404,
                     client.get("/v1/crm/activities/" + w.activityGone, bearer(w.owner.token)));
  }

  void testMemberReadsPipelinesButCannotChangeThem() {
    HttpClient client(rolesServer().port());
    const World w = buildWorld(client, "roles-pipelines");
    const Json before = pipelineShapes(client, w.owner.token);
    ROLES_RUN_TABLE(client, w.memberToken, pipelineReads(w));
    ROLES_RUN_TABLE(client, w.memberToken, pipelineWrites(w.pipeline, w.stages, 403));
    CPPUNIT_ASSERT_EQUAL(before.dump(), pipelineShapes(client, w.owner.token).dump());
  }

  // The 403s above are the role's: an admin may make the same calls.
  void testAdminChangesPipelines() {
    HttpClient client(rolesServer().port());
    const Account owner = registerUser(client, "roles-admin-owner");
    const Account admin = registerUser(client, "roles-admin");
    E2E_ASSERT_DATA(201, client.post("/v1/company/members",
                                     Json::object({{"email", admin.email}, {"role", "admin"}}),
                                     bearer(owner.token)));
    const std::string adminToken = switchContext(client, admin.token, owner.companyId);
    // A pipeline without deals, so that its stage and itself may be deleted.
    const Json pipeline =
        create(client, owner.token, "/v1/crm/pipelines",
               Json::object({{"name", "Hiring"},
                             {"stages", Json::Array{Json::object({{"name", "Applied"}}),
                                                    Json::object({{"name", "Interview"}}),
                                                    Json::object({{"name", "Offer"}})}}}));
    ROLES_RUN_TABLE(
        client, adminToken,
        pipelineWrites(pipeline["id"].asString(), pluck(pipeline["stages"], "id"), 200));
    E2E_ASSERT_ERROR(
        404, client.get("/v1/crm/pipelines/" + pipeline["id"].asString(), bearer(owner.token)));
  }

  void testRemovedMemberIs401Everywhere() {
    HttpClient client(rolesServer().port());
    const World w = buildWorld(client, "roles-removed");
    std::vector<Call> everything;
    for (const auto& part : {contactCalls(w), companyCalls(w), dealCalls(w), activityCalls(w),
                             pipelineReads(w), pipelineWrites(w.pipeline, w.stages, 403)}) {
      everything.insert(everything.end(), part.begin(), part.end());
    }
    // The token works (and is in the server's token cache) before the removal.
    E2E_ASSERT_DATA(200, client.get("/v1/crm/contacts", bearer(w.memberToken)));
    const auto counts = [&] {
      std::string out;
      for (const char* table : {"contacts", "crm_companies", "deals", "activities", "pipelines"}) {
        out += std::string(table) + "=" +
               queryDatabase(rolesServer().databaseUrl(),
                             std::string("SELECT COUNT(*) FROM ") + table +
                                 " WHERE company_id = " + sqlQuote(w.owner.companyId))
                   .front()
                   .front() +
               " ";
      }
      return out;
    };
    const std::string countsBefore = counts();
    const Json dealBefore = getBody(client, w.owner.token, "/v1/crm/deals/" + w.deal)["data"];
    const Json shapesBefore = pipelineShapes(client, w.owner.token);

    E2E_ASSERT_STATUS(200,
                      client.del("/v1/company/members/" + w.member.userId, bearer(w.owner.token)));
    ROLES_RUN_TABLE(client, w.memberToken, expecting(everything, 401));

    // Nothing the refused calls asked for happened.
    CPPUNIT_ASSERT_EQUAL(countsBefore, counts());
    CPPUNIT_ASSERT_EQUAL(dealBefore.dump(),
                         getBody(client, w.owner.token, "/v1/crm/deals/" + w.deal)["data"].dump());
    CPPUNIT_ASSERT_EQUAL(shapesBefore.dump(), pipelineShapes(client, w.owner.token).dump());
    // The member's own company still works for them.
    E2E_ASSERT_DATA(200, client.get("/v1/crm/contacts", bearer(w.member.token)));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(RolesTest);
