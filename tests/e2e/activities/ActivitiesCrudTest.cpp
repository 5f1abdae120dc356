// Activities one at a time (API Activity, Activities; decisions §1, §7, §8):
// create, read, partial update, delete, their errors, the owner and
// related_to checks, and the events they record.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/activities/ActivitiesSuite.h"
#include "rapport/ids.h"
#include "rapport/time.h"

using namespace rapport::e2e;
using namespace rapport::e2e::crm;

class ActivitiesCrudTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ActivitiesCrudTest);
  CPPUNIT_TEST(testEveryRouteNeedsAToken);
  CPPUNIT_TEST(testWrongMethodIs405);
  CPPUNIT_TEST(testCreateReturnsTheWholeActivity);
  CPPUNIT_TEST(testCreateWithTypeAndTitleOnly);
  CPPUNIT_TEST(testEveryType);
  CPPUNIT_TEST(testMalformedBodyIs400);
  CPPUNIT_TEST(testFieldRules);
  CPPUNIT_TEST(testRelatedToRules);
  CPPUNIT_TEST(testOwnerMustBeAMember);
  CPPUNIT_TEST(testReadMissingOrWrongPrefixIs404);
  CPPUNIT_TEST(testPatchChangesOnlyWhatIsSent);
  CPPUNIT_TEST(testPatchRules);
  CPPUNIT_TEST(testPatchWithNothingToChange);
  CPPUNIT_TEST(testDelete);
  CPPUNIT_TEST(testEventsCarryWhatGetReturns);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testEveryRouteNeedsAToken() {
    HttpClient client(activitiesServer().port());
    E2E_ASSERT_ERROR(401, client.get("/v1/crm/activities"));
    E2E_ASSERT_ERROR(
        401, client.post("/v1/crm/activities", Json::object({{"type", "call"}, {"title", "x"}})));
    E2E_ASSERT_ERROR(401, client.get("/v1/crm/activities/act_x"));
    E2E_ASSERT_ERROR(401, client.patch("/v1/crm/activities/act_x", Json::object()));
    E2E_ASSERT_ERROR(401, client.del("/v1/crm/activities/act_x"));
    E2E_ASSERT_ERROR(401, client.post("/v1/crm/activities/act_x/complete"));
    E2E_ASSERT_ERROR(401, client.post("/v1/crm/activities/act_x/reopen"));
    E2E_ASSERT_ERROR(401, client.get("/v1/crm/contacts/cont_x/activities"));
    E2E_ASSERT_ERROR(401, client.get("/v1/crm/deals/deal_x/activities"));
    E2E_ASSERT_ERROR(401, client.get("/v1/crm/activities", bearer("not-a-token")));
  }

  void testWrongMethodIs405() {
    HttpClient client(activitiesServer().port());
    const Account account = registerUser(client, "act-405");
    const HttpResult put =
        client.send("PUT", "/v1/crm/activities/act_x", std::string("{}"), bearer(account.token));
    E2E_ASSERT_ERROR(405, put);
    const auto allowed = splitComma(put.header("Allow"));
    for (const char* method : {"GET", "PATCH", "DELETE"}) {
      CPPUNIT_ASSERT_MESSAGE(describe(put), contains(allowed, method));
    }
    E2E_ASSERT_ERROR(405, client.del("/v1/crm/activities", bearer(account.token)));
    const HttpResult getComplete =
        client.get("/v1/crm/activities/act_x/complete", bearer(account.token));
    E2E_ASSERT_ERROR(405, getComplete);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(getComplete), std::string("POST"),
                                 getComplete.header("Allow"));
    E2E_ASSERT_ERROR(405, client.patch("/v1/crm/activities/act_x/reopen", Json::object(),
                                       bearer(account.token)));
    E2E_ASSERT_ERROR(405, client.post("/v1/crm/contacts/cont_x/activities", Json::object(),
                                      bearer(account.token)));
    E2E_ASSERT_ERROR(404, client.get("/v1/crm/activities/act_x/unknown", bearer(account.token)));
  }

  void testCreateReturnsTheWholeActivity() {
    HttpClient client(activitiesServer().port());
    const Account account = registerUser(client, "act-create");
    const Json contact = createContact(client, account.token, Json::object({{"name", "Ada"}}));
    const Json body = Json::object({{"type", "meeting"},
                                    {"title", "  Quarterly review  "},
                                    {"description", "Bring the figures."},
                                    {"scheduled_at", "2026-12-01T09:30:00+01:00"},
                                    {"duration_minutes", 45},
                                    {"owner_id", account.userId},
                                    {"related_to", related("contact", contact["id"])},
                                    {"id", "act_chosen"},
                                    {"status", "completed"},
                                    {"completed_at", "2020-01-01T00:00:00Z"},
                                    {"created_at", "2000-01-01T00:00:00Z"},
                                    {"unknown", true}});
    const HttpResult result = client.post("/v1/crm/activities", body, bearer(account.token));
    const Json activity = E2E_ASSERT_DATA(201, result);
    E2E_ASSERT_COMMON_HEADERS(result);

    const std::vector<std::string> keys = {"id",
                                           "type",
                                           "title",
                                           "description",
                                           "status",
                                           "scheduled_at",
                                           "duration_minutes",
                                           "owner_id",
                                           "related_to",
                                           "completed_at",
                                           "created_at",
                                           "updated_at",
                                           "custom_fields"};
    CPPUNIT_ASSERT_EQUAL_MESSAGE(activity.dump(), keys.size(), activity.size());
    std::size_t position = 0;
    for (const auto& [key, value] : activity.asObject()) {
      CPPUNIT_ASSERT_EQUAL(keys.at(position++), key);
    }
    CPPUNIT_ASSERT_MESSAGE(activity.dump(), rapport::hasPrefix(activity["id"].asString(), "act_"));
    CPPUNIT_ASSERT(activity["id"].asString() != "act_chosen");
    CPPUNIT_ASSERT_EQUAL(std::string("meeting"), activity["type"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Quarterly review"), activity["title"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Bring the figures."), activity["description"].asString());
    // Read-only fields are ignored: a new activity is pending.
    CPPUNIT_ASSERT_EQUAL(std::string("pending"), activity["status"].asString());
    CPPUNIT_ASSERT(activity["completed_at"].isNull());
    // Stored as UTC.
    CPPUNIT_ASSERT_EQUAL(std::string("2026-12-01T08:30:00.000000Z"),
                         activity["scheduled_at"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(45), activity["duration_minutes"].asInt());
    CPPUNIT_ASSERT_EQUAL(account.userId, activity["owner_id"].asString());
    CPPUNIT_ASSERT_EQUAL(related("contact", contact["id"]).dump(), activity["related_to"].dump());
    const std::int64_t created = E2E_ASSERT_ISO_UTC(activity["created_at"]);
    CPPUNIT_ASSERT(created > unixNow() - 60);
    CPPUNIT_ASSERT(activity["created_at"] == activity["updated_at"]);

    CPPUNIT_ASSERT_EQUAL(activity.dump(),
                         readActivity(client, account.token, activity["id"].asString()).dump());
  }

  void testCreateWithTypeAndTitleOnly() {
    HttpClient client(activitiesServer().port());
    const Account account = registerUser(client, "act-minimal");
    const Json activity = createCall(client, account.token, "Call back");
    for (const char* key : {"description", "scheduled_at", "duration_minutes", "owner_id",
                            "related_to", "completed_at"}) {
      CPPUNIT_ASSERT_MESSAGE(key, activity[key].isNull());
    }
    CPPUNIT_ASSERT_EQUAL(std::string("pending"), activity["status"].asString());
    // Blank optional text and explicit nulls are stored as null.
    const Json blank = createActivity(client, account.token,
                                      Json::object({{"type", "note"},
                                                    {"title", "N"},
                                                    {"description", "   "},
                                                    {"scheduled_at", Json()},
                                                    {"duration_minutes", Json()},
                                                    {"owner_id", Json()},
                                                    {"related_to", Json()}}));
    for (const char* key :
         {"description", "scheduled_at", "duration_minutes", "owner_id", "related_to"}) {
      CPPUNIT_ASSERT_MESSAGE(key, blank[key].isNull());
    }
  }

  void testEveryType() {
    HttpClient client(activitiesServer().port());
    const Account account = registerUser(client, "act-types");
    for (const char* type : {"call", "meeting", "email", "task", "note"}) {
      const Json activity =
          createActivity(client, account.token, Json::object({{"type", type}, {"title", "T"}}));
      CPPUNIT_ASSERT_EQUAL(std::string(type), activity["type"].asString());
    }
  }

  void testMalformedBodyIs400() {
    HttpClient client(activitiesServer().port());
    const Account account = registerUser(client, "act-400");
    for (const std::string body : {"{\"type\":", "[\"call\"]", "type=call", "\"call\""}) {
      E2E_ASSERT_ERROR(400,
                       client.send("POST", "/v1/crm/activities", body,
                                   bearer(account.token, {{"Content-Type", "application/json"}})));
    }
    const Json activity = createCall(client, account.token, "Di");
    E2E_ASSERT_ERROR(400,
                     client.send("PATCH", "/v1/crm/activities/" + activity["id"].asString(),
                                 std::string("{\"title\": }"),
                                 bearer(account.token, {{"Content-Type", "application/json"}})));
  }

  void testFieldRules() {
    HttpClient client(activitiesServer().port());
    const Account account = registerUser(client, "act-422");
    const auto post = [&](Json body) {
      return client.post("/v1/crm/activities", body, bearer(account.token));
    };
    const auto call = [](const char* field, Json value) {
      return Json::object({{"type", "call"}, {"title", "T"}, {field, std::move(value)}});
    };
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"title", "T"}})), "type",
                           "The type field is required.");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"type", Json()}, {"title", "T"}})), "type",
                           "The type field is required.");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"type", "visit"}, {"title", "T"}})), "type",
                           "The selected type is invalid.");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"type", "Call"}, {"title", "T"}})), "type",
                           "The selected type is invalid.");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"type", 1}, {"title", "T"}})), "type",
                           "The type must be a string.");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"type", "call"}})), "title",
                           "The title field is required.");
    CRM_ASSERT_FIELD_ERROR(post(call("title", "  ")), "title", "The title field is required.");
    CRM_ASSERT_FIELD_ERROR(post(call("title", 5)), "title", "The title must be a string.");
    CRM_ASSERT_FIELD_ERROR(post(call("title", std::string(256, 't'))), "title",
                           "The title may not be greater than 255 characters.");
    E2E_ASSERT_DATA(201, post(call("title", std::string(255, 't'))));
    CRM_ASSERT_FIELD_ERROR(post(call("description", std::string(10001, 'd'))), "description",
                           "The description may not be greater than 10000 characters.");
    E2E_ASSERT_DATA(201, post(call("description", std::string(10000, 'd'))));
    CRM_ASSERT_FIELD_ERROR(post(call("description", 3)), "description",
                           "The description must be a string.");
    for (const Json& bad : {Json("2026-13-01T00:00:00Z"), Json("2026-12-01"), Json("tomorrow"),
                            Json("2026-12-01T25:00:00Z"), Json(1700000000)}) {
      CRM_ASSERT_FIELD_ERROR(post(call("scheduled_at", bad)), "scheduled_at",
                             bad.isString() ? "The scheduled_at is not a valid date-time."
                                            : "The scheduled_at must be a string.");
    }
    CRM_ASSERT_FIELD_ERROR(post(call("duration_minutes", -1)), "duration_minutes",
                           "The duration_minutes must be at least 0.");
    CRM_ASSERT_FIELD_ERROR(post(call("duration_minutes", 10081)), "duration_minutes",
                           "The duration_minutes may not be greater than 10080.");
    CRM_ASSERT_FIELD_ERROR(post(call("duration_minutes", 1.5)), "duration_minutes",
                           "The duration_minutes must be an integer.");
    CRM_ASSERT_FIELD_ERROR(post(call("duration_minutes", "30")), "duration_minutes",
                           "The duration_minutes must be an integer.");
    CPPUNIT_ASSERT_EQUAL(
        std::int64_t(0),
        E2E_ASSERT_DATA(201, post(call("duration_minutes", 0)))["duration_minutes"].asInt());
    CPPUNIT_ASSERT_EQUAL(
        std::int64_t(10080),
        E2E_ASSERT_DATA(201, post(call("duration_minutes", 10080)))["duration_minutes"].asInt());
    CRM_ASSERT_FIELD_ERROR(post(call("owner_id", 5)), "owner_id", "The owner_id must be a string.");
    const std::string nul("a\0b", 3);
    CRM_ASSERT_FIELD_ERROR(post(call("title", nul)), "title",
                           "The title must not contain null characters.");
    CRM_ASSERT_FIELD_ERROR(post(call("description", nul)), "description",
                           "The description must not contain null characters.");

    // Every field at fault is named at once.
    const Json error = CRM_ASSERT_FIELD_ERROR(
        post(Json::object({{"type", "x"}, {"duration_minutes", -5}, {"related_to", 3}})), "title",
        "");
    for (const char* field : {"type", "duration_minutes", "related_to"}) {
      CPPUNIT_ASSERT_MESSAGE(field, error["errors"].contains(field));
    }
  }

  void testRelatedToRules() {
    HttpClient client(activitiesServer().port());
    const Account account = registerUser(client, "act-related");
    const auto post = [&](Json relatedTo) {
      return client.post(
          "/v1/crm/activities",
          Json::object({{"type", "task"}, {"title", "T"}, {"related_to", std::move(relatedTo)}}),
          bearer(account.token));
    };
    CRM_ASSERT_FIELD_ERROR(post("cont_x"), "related_to", "The related_to must be an object.");
    CRM_ASSERT_FIELD_ERROR(post(Json::Array{}), "related_to", "The related_to must be an object.");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"id", "cont_x"}})), "related_to.type",
                           "The related_to.type field is required.");
    CRM_ASSERT_FIELD_ERROR(post(related("user", "user_x")), "related_to.type",
                           "The selected related_to.type is invalid.");
    CRM_ASSERT_FIELD_ERROR(post(related("activity", "act_x")), "related_to.type",
                           "The selected related_to.type is invalid.");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"type", "contact"}})), "related_to.id",
                           "The related_to.id field is required.");
    CRM_ASSERT_FIELD_ERROR(post(related("contact", Json())), "related_to.id",
                           "The related_to.id field is required.");
    CRM_ASSERT_FIELD_ERROR(post(related("contact", 12)), "related_to.id",
                           "The related_to.id must be a string.");
    const Json both = CRM_ASSERT_FIELD_ERROR(post(Json::object()), "related_to.type",
                                             "The related_to.type field is required.");
    CPPUNIT_ASSERT(both["errors"].contains("related_to.id"));

    // Absent or another tenant's records are 404, whatever their type.
    const Account other = registerUser(client, "act-related-other");
    const Json theirContact =
        createContact(client, other.token, Json::object({{"name", "Theirs"}}));
    const Json theirCompany =
        createCrmCompany(client, other.token, Json::object({{"name", "Theirs"}}));
    const Json theirDeal = createDeal(client, other.token, "Theirs");
    const Json mine = createContact(client, account.token, Json::object({{"name", "Mine"}}));
    for (const Json& relatedTo :
         {related("contact", "cont_missing"), related("contact", theirContact["id"]),
          related("company", "comp_missing"), related("company", theirCompany["id"]),
          related("company", account.companyId), related("deal", "deal_missing"),
          related("deal", theirDeal["id"]), related("company", mine["id"]),
          related("deal", mine["id"])}) {
      CRM_ASSERT_ERROR_MESSAGE(404, "Related record not found.", post(relatedTo));
    }
    // Nothing was written.
    const Json list = getBody(client, account.token, "/v1/crm/activities");
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), list["meta"]["total"].asInt());
  }

  void testOwnerMustBeAMember() {
    HttpClient client(activitiesServer().port());
    const Account account = registerUser(client, "act-owner");
    const Account stranger = registerUser(client, "act-owner-stranger");
    const Account member = addMember(client, account, "member", "act-owner-member");
    const auto post = [&](Json owner) {
      return client.post("/v1/crm/activities",
                         Json::object({{"type", "call"}, {"title", "T"}, {"owner_id", owner}}),
                         bearer(account.token));
    };
    for (const std::string& id :
         {std::string("user_missing"), stranger.userId, account.companyId}) {
      CRM_ASSERT_ERROR_MESSAGE(404, "Owner not found.", post(id));
    }
    CPPUNIT_ASSERT_EQUAL(member.userId,
                         E2E_ASSERT_DATA(201, post(member.userId))["owner_id"].asString());
    const Json activity = createCall(client, account.token, "Owned later");
    const std::string path = "/v1/crm/activities/" + activity["id"].asString();
    CRM_ASSERT_ERROR_MESSAGE(
        404, "Owner not found.",
        client.patch(path, Json::object({{"owner_id", stranger.userId}}), bearer(account.token)));
    CPPUNIT_ASSERT(
        readActivity(client, account.token, activity["id"].asString())["owner_id"].isNull());
  }

  void testReadMissingOrWrongPrefixIs404() {
    HttpClient client(activitiesServer().port());
    const Account account = registerUser(client, "act-404");
    const Json contact = createContact(client, account.token, Json::object({{"name", "C"}}));
    for (const std::string& id :
         {std::string("act_missing"), contact["id"].asString(), std::string("x")}) {
      const std::string path = "/v1/crm/activities/" + id;
      CRM_ASSERT_ERROR_MESSAGE(404, "Activity not found.", client.get(path, bearer(account.token)));
      CRM_ASSERT_ERROR_MESSAGE(
          404, "Activity not found.",
          client.patch(path, Json::object({{"title", "x"}}), bearer(account.token)));
      CRM_ASSERT_ERROR_MESSAGE(404, "Activity not found.", client.del(path, bearer(account.token)));
      CRM_ASSERT_ERROR_MESSAGE(
          404, "Activity not found.",
          client.post(path + "/complete", Json::object(), bearer(account.token)));
      CRM_ASSERT_ERROR_MESSAGE(
          404, "Activity not found.",
          client.post(path + "/reopen", Json::object(), bearer(account.token)));
    }
  }

  void testPatchChangesOnlyWhatIsSent() {
    HttpClient client(activitiesServer().port());
    const Account account = registerUser(client, "act-patch");
    const Json company = createCrmCompany(client, account.token, Json::object({{"name", "Acme"}}));
    const Json contact = createContact(client, account.token, Json::object({{"name", "Ada"}}));
    const Json original =
        createActivity(client, account.token,
                       Json::object({{"type", "call"},
                                     {"title", "Intro"},
                                     {"description", "First call."},
                                     {"scheduled_at", "2026-12-01T10:00:00Z"},
                                     {"duration_minutes", 30},
                                     {"owner_id", account.userId},
                                     {"related_to", related("contact", contact["id"])}}));
    const std::string id = original["id"].asString();
    const std::string path = "/v1/crm/activities/" + id;

    const Json renamed = E2E_ASSERT_DATA(
        200, client.patch(path,
                          Json::object({{"title", " Intro, rescheduled "},
                                        {"scheduled_at", "2026-12-02T11:15:30.5Z"}}),
                          bearer(account.token)));
    Json expected = original;
    expected.set("title", "Intro, rescheduled");
    expected.set("scheduled_at", "2026-12-02T11:15:30.500000Z");
    expected.set("updated_at", renamed["updated_at"]);
    CPPUNIT_ASSERT_EQUAL(expected.dump(), renamed.dump());
    CPPUNIT_ASSERT(renamed["updated_at"] != original["updated_at"]);
    CPPUNIT_ASSERT_EQUAL(renamed.dump(), readActivity(client, account.token, id).dump());

    // Every changeable field, with nulls clearing the optional ones.
    const Json cleared =
        E2E_ASSERT_DATA(200, client.patch(path,
                                          Json::object({{"type", "meeting"},
                                                        {"description", Json()},
                                                        {"scheduled_at", Json()},
                                                        {"duration_minutes", Json()},
                                                        {"owner_id", Json()},
                                                        {"related_to", Json()}}),
                                          bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(std::string("meeting"), cleared["type"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Intro, rescheduled"), cleared["title"].asString());
    for (const char* key :
         {"description", "scheduled_at", "duration_minutes", "owner_id", "related_to"}) {
      CPPUNIT_ASSERT_MESSAGE(key, cleared[key].isNull());
    }
    // related_to moves to another record (checked like on create).
    const Json moved = E2E_ASSERT_DATA(
        200, client.patch(path,
                          Json::object({{"related_to", related("company", company["id"])},
                                        {"owner_id", account.userId},
                                        {"duration_minutes", 90},
                                        {"description", "Now with Acme."}}),
                          bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(related("company", company["id"]).dump(), moved["related_to"].dump());
    CPPUNIT_ASSERT_EQUAL(account.userId, moved["owner_id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(90), moved["duration_minutes"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::string("Now with Acme."), moved["description"].asString());
    CPPUNIT_ASSERT_EQUAL(moved.dump(), readActivity(client, account.token, id).dump());
  }

  void testPatchRules() {
    HttpClient client(activitiesServer().port());
    const Account account = registerUser(client, "act-patch-422");
    const Account other = registerUser(client, "act-patch-other");
    const Json activity = createCall(client, account.token, "Rules");
    const std::string path = "/v1/crm/activities/" + activity["id"].asString();
    const auto patch = [&](Json body) { return client.patch(path, body, bearer(account.token)); };
    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"title", Json()}})), "title",
                           "The title field is required.");
    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"title", " "}})), "title",
                           "The title field is required.");
    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"type", Json()}})), "type",
                           "The type field is required.");
    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"type", "lunch"}})), "type",
                           "The selected type is invalid.");
    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"scheduled_at", "soon"}})), "scheduled_at",
                           "The scheduled_at is not a valid date-time.");
    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"duration_minutes", 20000}})), "duration_minutes",
                           "The duration_minutes may not be greater than 10080.");
    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"related_to", related("lead", "x")}})),
                           "related_to.type", "The selected related_to.type is invalid.");
    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"related_to", Json::object({{"type", "deal"}})}})),
                           "related_to.id", "The related_to.id field is required.");
    const Json theirs = createContact(client, other.token, Json::object({{"name", "Theirs"}}));
    CRM_ASSERT_ERROR_MESSAGE(
        404, "Related record not found.",
        patch(Json::object({{"related_to", related("contact", theirs["id"])}})));
    CRM_ASSERT_ERROR_MESSAGE(404, "Related record not found.",
                             patch(Json::object({{"related_to", related("deal", "deal_none")}})));
    // Nothing changed.
    CPPUNIT_ASSERT_EQUAL(activity.dump(),
                         readActivity(client, account.token, activity["id"].asString()).dump());
  }

  void testPatchWithNothingToChange() {
    ServerProcess& server = activitiesServer();
    HttpClient client(server.port());
    const Account account = registerUser(client, "act-patch-noop");
    const Json contact = createContact(client, account.token, Json::object({{"name", "Ada"}}));
    const Json activity =
        createActivity(client, account.token,
                       Json::object({{"type", "email"},
                                     {"title", "Same"},
                                     {"scheduled_at", "2026-12-01T10:00:00Z"},
                                     {"related_to", related("contact", contact["id"])}}));
    const std::string id = activity["id"].asString();
    const std::string path = "/v1/crm/activities/" + id;
    // Unknown members, read-only members (status and completed_at included),
    // and values equal to the stored ones change nothing.
    for (const Json& body :
         {Json::object(), Json::object({{"unknown", 1}}),
          Json::object({{"status", "completed"}, {"completed_at", "2026-01-01T00:00:00Z"}}),
          Json::object({{"id", "act_other"}, {"created_at", "2000-01-01T00:00:00Z"}}),
          Json::object({{"title", "Same"},
                        {"type", "email"},
                        {"scheduled_at", "2026-12-01T11:00:00+01:00"},
                        {"description", ""},
                        {"related_to", related("contact", contact["id"])}})}) {
      const Json answer = E2E_ASSERT_DATA(200, client.patch(path, body, bearer(account.token)));
      CPPUNIT_ASSERT_EQUAL_MESSAGE(body.dump(), activity.dump(), answer.dump());
    }
    CPPUNIT_ASSERT_EQUAL(activity.dump(), readActivity(client, account.token, id).dump());
    CPPUNIT_ASSERT(eventsAbout(server, account.companyId, "crm.activity.updated", id).empty());
  }

  void testDelete() {
    ServerProcess& server = activitiesServer();
    HttpClient client(server.port());
    const Account account = registerUser(client, "act-delete");
    const Json activity = createCall(client, account.token, "Doomed");
    const Json kept = createCall(client, account.token, "Kept");
    const std::string id = activity["id"].asString();
    const std::string path = "/v1/crm/activities/" + id;
    const HttpResult deleted = client.del(path, bearer(account.token));
    CPPUNIT_ASSERT_EQUAL(Json::object({{"id", id}}).dump(), E2E_ASSERT_DATA(200, deleted).dump());
    CRM_ASSERT_ERROR_MESSAGE(404, "Activity not found.", client.get(path, bearer(account.token)));
    CRM_ASSERT_ERROR_MESSAGE(404, "Activity not found.", client.del(path, bearer(account.token)));
    const Json list = getBody(client, account.token, "/v1/crm/activities");
    CPPUNIT_ASSERT(idsOf(list) == std::vector<std::string>{kept["id"].asString()});
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), list["meta"]["total"].asInt());
    const auto events = eventsAbout(server, account.companyId, "crm.activity.deleted", id);
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), events.size());
    CPPUNIT_ASSERT_EQUAL(Json::object({{"id", id}}).dump(), events.front().dump());
  }

  void testEventsCarryWhatGetReturns() {
    ServerProcess& server = activitiesServer();
    HttpClient client(server.port());
    const Account account = registerUser(client, "act-events");
    const Json deal = createDeal(client, account.token, "Big one");
    const Json created =
        createActivity(client, account.token,
                       Json::object({{"type", "task"},
                                     {"title", "Send the offer"},
                                     {"related_to", related("deal", deal["id"])}}));
    const std::string id = created["id"].asString();
    const std::string path = "/v1/crm/activities/" + id;
    const Json updated =
        E2E_ASSERT_DATA(200, client.patch(path, Json::object({{"title", "Send the final offer"}}),
                                          bearer(account.token)));
    const Json completed = E2E_ASSERT_DATA(
        200, client.post(path + "/complete", Json::object(), bearer(account.token)));
    const Json reopened =
        E2E_ASSERT_DATA(200, client.post(path + "/reopen", Json::object(), bearer(account.token)));
    E2E_ASSERT_DATA(200, client.del(path, bearer(account.token)));

    const auto data = [&](const std::string& type) {
      return eventsAbout(server, account.companyId, type, id);
    };
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), data("crm.activity.created").size());
    CPPUNIT_ASSERT_EQUAL(created.dump(), data("crm.activity.created").front().dump());
    const auto updates = data("crm.activity.updated");
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), updates.size());
    CPPUNIT_ASSERT_EQUAL(updated.dump(), updates.at(0).dump());
    CPPUNIT_ASSERT_EQUAL(reopened.dump(), updates.at(1).dump());  // reopen emits updated
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), data("crm.activity.completed").size());
    CPPUNIT_ASSERT_EQUAL(completed.dump(), data("crm.activity.completed").front().dump());
    CPPUNIT_ASSERT(
        (activityEvents(server, account.companyId) ==
         std::vector<std::string>{"crm.activity.created " + id, "crm.activity.updated " + id,
                                  "crm.activity.completed " + id, "crm.activity.updated " + id,
                                  "crm.activity.deleted " + id}));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ActivitiesCrudTest);
