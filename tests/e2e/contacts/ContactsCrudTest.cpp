// Contacts one at a time (API Contacts; decisions §1, §7): create, read,
// partial update, delete, their errors, and the events they record.
#include <cppunit/extensions/HelperMacros.h>

#include <cctype>

#include "e2e/contacts/ContactsSuite.h"
#include "rapport/ids.h"
#include "rapport/time.h"

using namespace rapport::e2e;
using namespace rapport::e2e::crm;

namespace {

std::string toUpper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

std::int64_t micros(const Json& timestamp) {
  return *rapport::parseIsoTimestamp(timestamp.asString());
}

}  // namespace

class ContactsCrudTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ContactsCrudTest);
  CPPUNIT_TEST(testEveryRouteNeedsAToken);
  CPPUNIT_TEST(testWrongMethodIs405);
  CPPUNIT_TEST(testCreateReturnsTheWholeContact);
  CPPUNIT_TEST(testCreateWithNameOnly);
  CPPUNIT_TEST(testMalformedBodyIs400);
  CPPUNIT_TEST(testFieldRules);
  CPPUNIT_TEST(testDuplicateEmailIs409);
  CPPUNIT_TEST(testLinkedCompanyAndOwnerMustExist);
  CPPUNIT_TEST(testReadMissingWrongPrefixOrOtherTenantIs404);
  CPPUNIT_TEST(testPatchChangesOnlyWhatIsSent);
  CPPUNIT_TEST(testPatchRules);
  CPPUNIT_TEST(testCompanyAndOwnerAreSetOnCreateOnly);
  CPPUNIT_TEST(testDelete);
  CPPUNIT_TEST(testEventsCarryWhatGetReturns);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testEveryRouteNeedsAToken() {
    HttpClient client(contactsServer().port());
    E2E_ASSERT_ERROR(401, client.get("/v1/crm/contacts"));
    E2E_ASSERT_ERROR(401, client.post("/v1/crm/contacts", Json::object({{"name", "x"}})));
    E2E_ASSERT_ERROR(401, client.get("/v1/crm/contacts/cont_x"));
    E2E_ASSERT_ERROR(401, client.patch("/v1/crm/contacts/cont_x", Json::object()));
    E2E_ASSERT_ERROR(401, client.del("/v1/crm/contacts/cont_x"));
    E2E_ASSERT_ERROR(401, client.get("/v1/crm/companies/comp_x/contacts"));
    E2E_ASSERT_ERROR(401, client.get("/v1/crm/contacts", bearer("not-a-token")));
  }

  void testWrongMethodIs405() {
    HttpClient client(contactsServer().port());
    const Account account = registerUser(client, "contacts-405");
    const HttpResult put =
        client.send("PUT", "/v1/crm/contacts/cont_x", std::string("{}"), bearer(account.token));
    E2E_ASSERT_ERROR(405, put);
    const auto allowed = splitComma(put.header("Allow"));
    for (const char* method : {"GET", "PATCH", "DELETE"}) {
      CPPUNIT_ASSERT_MESSAGE(describe(put), contains(allowed, method));
    }
    E2E_ASSERT_ERROR(405, client.del("/v1/crm/contacts", bearer(account.token)));
    E2E_ASSERT_ERROR(404, client.get("/v1/crm/contacts/cont_x/unknown", bearer(account.token)));
  }

  void testCreateReturnsTheWholeContact() {
    HttpClient client(contactsServer().port());
    const Account account = registerUser(client, "contacts-create");
    const Json company = createCrmCompany(client, account.token, Json::object({{"name", "Acme"}}));
    const Json body = Json::object({{"name", "  Ada Lovelace  "},
                                    {"email", "Ada@Example.COM"},
                                    {"phone", "+44 20 7946 0000"},
                                    {"job_title", "Analyst"},
                                    {"company_id", company["id"]},
                                    {"owner_id", account.userId},
                                    {"tags", Json::Array{"VIP", "lead", "vip", " lead "}},
                                    {"notes", "Met at the engine demo."},
                                    {"id", "cont_chosen"},
                                    {"created_at", "2000-01-01T00:00:00Z"},
                                    {"unknown", true}});
    const HttpResult result = client.post("/v1/crm/contacts", body, bearer(account.token));
    const Json contact = E2E_ASSERT_DATA(201, result);
    E2E_ASSERT_COMMON_HEADERS(result);

    const std::vector<std::string> keys = {
        "id",       "name", "email", "phone",      "job_title",  "company_id",
        "owner_id", "tags", "notes", "created_at", "updated_at", "custom_fields"};
    CPPUNIT_ASSERT_EQUAL_MESSAGE(contact.dump(), keys.size(), contact.size());
    for (const std::string& key : keys) CPPUNIT_ASSERT_MESSAGE(key, contact.contains(key));
    CPPUNIT_ASSERT_MESSAGE(contact.dump(), rapport::hasPrefix(contact["id"].asString(), "cont_"));
    // No custom field defined: an empty object (decisions §14).
    CPPUNIT_ASSERT(contact["custom_fields"] == Json::object());
    CPPUNIT_ASSERT(contact["id"].asString() != "cont_chosen");
    CPPUNIT_ASSERT_EQUAL(std::string("Ada Lovelace"), contact["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("ada@example.com"), contact["email"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("+44 20 7946 0000"), contact["phone"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Analyst"), contact["job_title"].asString());
    CPPUNIT_ASSERT(contact["company_id"] == company["id"]);
    CPPUNIT_ASSERT_EQUAL(account.userId, contact["owner_id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("[\"VIP\",\"lead\"]"), contact["tags"].dump());
    CPPUNIT_ASSERT_EQUAL(std::string("Met at the engine demo."), contact["notes"].asString());
    const std::int64_t created = E2E_ASSERT_ISO_UTC(contact["created_at"]);
    CPPUNIT_ASSERT(created > unixNow() - 60);
    CPPUNIT_ASSERT(contact["created_at"] == contact["updated_at"]);

    const Json read = E2E_ASSERT_DATA(
        200, client.get("/v1/crm/contacts/" + contact["id"].asString(), bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(contact.dump(), read.dump());
  }

  void testCreateWithNameOnly() {
    HttpClient client(contactsServer().port());
    const Account account = registerUser(client, "contacts-minimal");
    const Json contact = createContact(client, account.token, Json::object({{"name", "Bo"}}));
    for (const char* key : {"email", "phone", "job_title", "company_id", "owner_id", "notes"}) {
      CPPUNIT_ASSERT_MESSAGE(key, contact[key].isNull());
    }
    CPPUNIT_ASSERT_EQUAL(std::string("[]"), contact["tags"].dump());
    // Blank optional strings are stored as null.
    const Json blank = createContact(
        client, account.token, Json::object({{"name", "Cy"}, {"phone", "  "}, {"notes", ""}}));
    CPPUNIT_ASSERT(blank["phone"].isNull());
    CPPUNIT_ASSERT(blank["notes"].isNull());
  }

  void testMalformedBodyIs400() {
    HttpClient client(contactsServer().port());
    const Account account = registerUser(client, "contacts-400");
    const std::vector<std::string> bodies = {"{\"name\":", "[\"name\"]", "name=Ada", "\"Ada\""};
    for (const std::string& body : bodies) {
      E2E_ASSERT_ERROR(400,
                       client.send("POST", "/v1/crm/contacts", body,
                                   bearer(account.token, {{"Content-Type", "application/json"}})));
    }
    const Json contact = createContact(client, account.token, Json::object({{"name", "Di"}}));
    E2E_ASSERT_ERROR(400,
                     client.send("PATCH", "/v1/crm/contacts/" + contact["id"].asString(),
                                 std::string("{\"name\": }"),
                                 bearer(account.token, {{"Content-Type", "application/json"}})));
  }

  void testFieldRules() {
    HttpClient client(contactsServer().port());
    const Account account = registerUser(client, "contacts-422");
    const auto post = [&](Json body) {
      return client.post("/v1/crm/contacts", body, bearer(account.token));
    };
    CRM_ASSERT_FIELD_ERROR(post(Json::object()), "name", "The name field is required.");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"name", Json()}})), "name", "");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"name", "   "}})), "name", "");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"name", 42}})), "name", "");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"name", std::string(256, 'n')}})), "name",
                           "The name may not be greater than 255 characters.");
    E2E_ASSERT_DATA(201, post(Json::object({{"name", std::string(255, 'n')}})));

    const auto withName = [](const char* field, Json value) {
      return Json::object({{"name", "Ed"}, {field, std::move(value)}});
    };
    CRM_ASSERT_FIELD_ERROR(post(withName("email", "not-an-email")), "email",
                           "The email must be a valid email address.");
    CRM_ASSERT_FIELD_ERROR(post(withName("email", 7)), "email", "");
    CRM_ASSERT_FIELD_ERROR(post(withName("phone", std::string(51, '1'))), "phone", "");
    CRM_ASSERT_FIELD_ERROR(post(withName("job_title", std::string(256, 'j'))), "job_title", "");
    CRM_ASSERT_FIELD_ERROR(post(withName("notes", std::string(10001, 'n'))), "notes", "");
    E2E_ASSERT_DATA(201, post(withName("notes", std::string(10000, 'n'))));
    CRM_ASSERT_FIELD_ERROR(post(withName("company_id", 5)), "company_id", "");
    CRM_ASSERT_FIELD_ERROR(post(withName("owner_id", Json::Array{})), "owner_id", "");
    CRM_ASSERT_FIELD_ERROR(post(withName("tags", "vip")), "tags", "");
    CRM_ASSERT_FIELD_ERROR(post(withName("tags", Json::Array{"ok", 3})), "tags.1", "");
    CRM_ASSERT_FIELD_ERROR(post(withName("tags", Json::Array{""})), "tags.0", "");
    CRM_ASSERT_FIELD_ERROR(post(withName("tags", Json::Array{std::string(51, 't')})), "tags.0", "");
    Json many = Json::array();
    for (int i = 0; i < 51; ++i) many.push("t" + std::to_string(i));
    CRM_ASSERT_FIELD_ERROR(post(withName("tags", many)), "tags", "");
    many.asArray().pop_back();
    E2E_ASSERT_DATA(201, post(withName("tags", many)));
    // A NUL character (PostgreSQL text cannot hold one) is refused on both engines.
    const std::string nul("a\0b", 3);
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"name", nul}})), "name",
                           "The name must not contain null characters.");
    CRM_ASSERT_FIELD_ERROR(post(withName("email", nul + "@example.com")), "email",
                           "The email must not contain null characters.");
    CRM_ASSERT_FIELD_ERROR(post(withName("notes", nul)), "notes",
                           "The notes must not contain null characters.");
    CRM_ASSERT_FIELD_ERROR(post(withName("owner_id", nul)), "owner_id",
                           "The owner_id must not contain null characters.");
    CRM_ASSERT_FIELD_ERROR(post(withName("tags", Json::Array{"ok", nul})), "tags.1",
                           "The tags.1 must not contain null characters.");

    // Every field at fault is named at once.
    const Json error =
        CRM_ASSERT_FIELD_ERROR(post(Json::object({{"email", "x"}, {"phone", 1}})), "name", "");
    CPPUNIT_ASSERT(error["errors"].contains("email"));
    CPPUNIT_ASSERT(error["errors"].contains("phone"));
  }

  void testDuplicateEmailIs409() {
    HttpClient client(contactsServer().port());
    const Account account = registerUser(client, "contacts-409");
    const Account other = registerUser(client, "contacts-409-other");
    const std::string email = uniqueEmail("dup");
    createContact(client, account.token, Json::object({{"name", "First"}, {"email", email}}));
    const std::string message = "A contact with this email already exists.";
    CRM_ASSERT_ERROR_MESSAGE(
        409, message,
        client.post("/v1/crm/contacts", Json::object({{"name", "Again"}, {"email", email}}),
                    bearer(account.token)));
    std::string upper = email;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    CRM_ASSERT_ERROR_MESSAGE(
        409, message,
        client.post("/v1/crm/contacts", Json::object({{"name", "Upper"}, {"email", upper}}),
                    bearer(account.token)));
    // Unique per tenant only; contacts without e-mail never collide.
    createContact(client, other.token, Json::object({{"name", "Elsewhere"}, {"email", email}}));
    createContact(client, account.token, Json::object({{"name", "No mail 1"}}));
    createContact(client, account.token, Json::object({{"name", "No mail 2"}}));
    // PATCH onto a taken address.
    const Json second = createContact(
        client, account.token, Json::object({{"name", "Second"}, {"email", uniqueEmail("b")}}));
    CRM_ASSERT_ERROR_MESSAGE(409, message,
                             client.patch("/v1/crm/contacts/" + second["id"].asString(),
                                          Json::object({{"email", upper}}), bearer(account.token)));
  }

  void testLinkedCompanyAndOwnerMustExist() {
    HttpClient client(contactsServer().port());
    const Account account = registerUser(client, "contacts-links");
    const Account other = registerUser(client, "contacts-links-other");
    const Json theirs = createCrmCompany(client, other.token, Json::object({{"name", "Theirs"}}));
    const auto post = [&](Json body) {
      body.set("name", "Linked");
      return client.post("/v1/crm/contacts", body, bearer(account.token));
    };
    for (const Json& id :
         {Json("comp_missing"), theirs["id"], Json(account.companyId), Json("cont_wrongprefix")}) {
      CRM_ASSERT_ERROR_MESSAGE(404, "Company not found.", post(Json::object({{"company_id", id}})));
    }
    for (const Json& id : {Json("user_missing"), Json(other.userId), Json(account.companyId)}) {
      CRM_ASSERT_ERROR_MESSAGE(404, "Owner not found.", post(Json::object({{"owner_id", id}})));
    }
    // The other user's second company does not see the first one's records either.
    const std::string secondCompany = createCompany(client, other.token, "Other's second");
    const std::string secondToken = switchContext(client, other.token, secondCompany);
    CRM_ASSERT_ERROR_MESSAGE(
        404, "Company not found.",
        client.post("/v1/crm/contacts",
                    Json::object({{"name", "Cross"}, {"company_id", theirs["id"]}}),
                    bearer(secondToken)));
    const Json mine = createCrmCompany(client, account.token, Json::object({{"name", "Mine"}}));
    E2E_ASSERT_DATA(201,
                    post(Json::object({{"company_id", mine["id"]}, {"owner_id", account.userId}})));
    E2E_ASSERT_DATA(201, post(Json::object({{"company_id", Json()}, {"owner_id", Json()}})));
  }

  void testReadMissingWrongPrefixOrOtherTenantIs404() {
    HttpClient client(contactsServer().port());
    const Account account = registerUser(client, "contacts-404");
    const Account other = registerUser(client, "contacts-404-other");
    const Json theirs = createContact(client, other.token, Json::object({{"name", "Theirs"}}));
    const Json company = createCrmCompany(client, account.token, Json::object({{"name", "Co"}}));
    for (const std::string& id : {std::string("cont_missing"), theirs["id"].asString(),
                                  company["id"].asString(), std::string("x"), account.userId}) {
      const std::string path = "/v1/crm/contacts/" + id;
      CRM_ASSERT_ERROR_MESSAGE(404, "Contact not found.", client.get(path, bearer(account.token)));
      CRM_ASSERT_ERROR_MESSAGE(
          404, "Contact not found.",
          client.patch(path, Json::object({{"name", "Hijack"}}), bearer(account.token)));
      CRM_ASSERT_ERROR_MESSAGE(404, "Contact not found.", client.del(path, bearer(account.token)));
    }
    // The other tenant's contact is untouched.
    const Json still = E2E_ASSERT_DATA(
        200, client.get("/v1/crm/contacts/" + theirs["id"].asString(), bearer(other.token)));
    CPPUNIT_ASSERT_EQUAL(theirs.dump(), still.dump());
  }

  void testPatchChangesOnlyWhatIsSent() {
    HttpClient client(contactsServer().port());
    const Account account = registerUser(client, "contacts-patch");
    const Json company = createCrmCompany(client, account.token, Json::object({{"name", "Co"}}));
    const Json original = createContact(client, account.token,
                                        Json::object({{"name", "Fay"},
                                                      {"email", uniqueEmail("fay")},
                                                      {"phone", "123"},
                                                      {"job_title", "CTO"},
                                                      {"company_id", company["id"]},
                                                      {"owner_id", account.userId},
                                                      {"tags", Json::Array{"a", "b"}},
                                                      {"notes", "n"}}));
    const std::string path = "/v1/crm/contacts/" + original["id"].asString();

    const HttpResult result =
        client.patch(path, Json::object({{"phone", "456"}}), bearer(account.token));
    const Json patched = E2E_ASSERT_DATA(200, result);
    Json expected = original;
    expected.set("phone", "456");
    expected.set("updated_at", patched["updated_at"]);
    CPPUNIT_ASSERT_EQUAL(expected.dump(), patched.dump());
    CPPUNIT_ASSERT(micros(patched["updated_at"]) > micros(original["updated_at"]));
    CPPUNIT_ASSERT(patched["created_at"] == original["created_at"]);
    const Json read = E2E_ASSERT_DATA(200, client.get(path, bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(patched.dump(), read.dump());

    // null clears optional fields; tags null is the empty list.
    const Json cleared = E2E_ASSERT_DATA(200, client.patch(path,
                                                           Json::object({{"email", Json()},
                                                                         {"phone", Json()},
                                                                         {"job_title", Json()},
                                                                         {"tags", Json()},
                                                                         {"notes", Json()}}),
                                                           bearer(account.token)));
    for (const char* key : {"email", "phone", "job_title", "notes"}) {
      CPPUNIT_ASSERT_MESSAGE(key, cleared[key].isNull());
    }
    CPPUNIT_ASSERT_EQUAL(std::string("[]"), cleared["tags"].dump());
    CPPUNIT_ASSERT_EQUAL(std::string("Fay"), cleared["name"].asString());
    CPPUNIT_ASSERT(cleared["company_id"] == company["id"]);

    const Json renamed = E2E_ASSERT_DATA(
        200, client.patch(path, Json::object({{"name", "Fay Two"}, {"tags", Json::Array{"x"}}}),
                          bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(std::string("Fay Two"), renamed["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("[\"x\"]"), renamed["tags"].dump());

    // A body that changes nothing answers the record as it is.
    const Json same =
        E2E_ASSERT_DATA(200, client.patch(path, Json::object(), bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(renamed.dump(), same.dump());
  }

  void testPatchRules() {
    HttpClient client(contactsServer().port());
    const Account account = registerUser(client, "contacts-patch-422");
    const Json contact = createContact(client, account.token, Json::object({{"name", "Gil"}}));
    const std::string path = "/v1/crm/contacts/" + contact["id"].asString();
    const auto patch = [&](Json body) { return client.patch(path, body, bearer(account.token)); };
    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"name", Json()}})), "name",
                           "The name field is required.");
    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"name", ""}})), "name", "");
    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"email", "nope"}})), "email", "");
    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"tags", Json::Array{1}}})), "tags.0", "");
    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"notes", std::string(10001, 'n')}})), "notes", "");
    // Nothing changed.
    const Json read = E2E_ASSERT_DATA(200, client.get(path, bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(contact.dump(), read.dump());
  }

  void testCompanyAndOwnerAreSetOnCreateOnly() {
    HttpClient client(contactsServer().port());
    const Account account = registerUser(client, "contacts-immutable");
    const Json company = createCrmCompany(client, account.token, Json::object({{"name", "One"}}));
    const Json another = createCrmCompany(client, account.token, Json::object({{"name", "Two"}}));
    const Json linked = createContact(
        client, account.token,
        Json::object(
            {{"name", "Hal"}, {"company_id", company["id"]}, {"owner_id", account.userId}}));
    const Json unlinked = createContact(client, account.token, Json::object({{"name", "Ivy"}}));
    const auto patch = [&](const Json& contact, Json body) {
      return client.patch("/v1/crm/contacts/" + contact["id"].asString(), body,
                          bearer(account.token));
    };
    const std::string companyMessage = "The company_id cannot be changed after creation.";
    const std::string ownerMessage = "The owner_id cannot be changed after creation.";

    // The same value is fine.
    const Json same =
        E2E_ASSERT_DATA(200, patch(linked, Json::object({{"company_id", company["id"]},
                                                         {"owner_id", account.userId},
                                                         {"job_title", "Boss"}})));
    CPPUNIT_ASSERT_EQUAL(std::string("Boss"), same["job_title"].asString());
    E2E_ASSERT_DATA(200,
                    patch(unlinked, Json::object({{"company_id", Json()}, {"owner_id", Json()}})));

    CRM_ASSERT_FIELD_ERROR(patch(linked, Json::object({{"company_id", another["id"]}})),
                           "company_id", companyMessage);
    CRM_ASSERT_FIELD_ERROR(patch(linked, Json::object({{"company_id", Json()}})), "company_id",
                           companyMessage);
    CRM_ASSERT_FIELD_ERROR(patch(unlinked, Json::object({{"company_id", company["id"]}})),
                           "company_id", companyMessage);
    CRM_ASSERT_FIELD_ERROR(patch(linked, Json::object({{"owner_id", "user_other"}})), "owner_id",
                           ownerMessage);
    CRM_ASSERT_FIELD_ERROR(patch(linked, Json::object({{"owner_id", Json()}})), "owner_id",
                           ownerMessage);
    CRM_ASSERT_FIELD_ERROR(patch(unlinked, Json::object({{"owner_id", account.userId}})),
                           "owner_id", ownerMessage);
    const Json read = E2E_ASSERT_DATA(
        200, client.get("/v1/crm/contacts/" + linked["id"].asString(), bearer(account.token)));
    CPPUNIT_ASSERT(read["company_id"] == company["id"]);
    CPPUNIT_ASSERT_EQUAL(account.userId, read["owner_id"].asString());
  }

  void testDelete() {
    HttpClient client(contactsServer().port());
    const Account account = registerUser(client, "contacts-delete");
    const Json contact = createContact(
        client, account.token,
        Json::object({{"name", "Jo"}, {"email", uniqueEmail("jo")}, {"tags", Json::Array{"t"}}}));
    const std::string path = "/v1/crm/contacts/" + contact["id"].asString();
    const HttpResult result = client.del(path, bearer(account.token));
    const Json data = E2E_ASSERT_DATA(200, result);
    CPPUNIT_ASSERT_EQUAL(Json::object({{"id", contact["id"]}}).dump(), data.dump());
    CRM_ASSERT_ERROR_MESSAGE(404, "Contact not found.", client.get(path, bearer(account.token)));
    CRM_ASSERT_ERROR_MESSAGE(404, "Contact not found.", client.del(path, bearer(account.token)));
    const Json list = getBody(client, account.token, "/v1/crm/contacts?tag=t");
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), list["meta"]["total"].asInt());
    // The e-mail is free again.
    createContact(client, account.token,
                  Json::object({{"name", "Jo again"}, {"email", contact["email"]}}));
  }

  void testEventsCarryWhatGetReturns() {
    ServerProcess& server = contactsServer();
    HttpClient client(server.port());
    const Account account = registerUser(client, "contacts-events");
    const Json created = createContact(
        client, account.token,
        Json::object({{"name", "Kim"}, {"email", uniqueEmail("kim")}, {"tags", Json::Array{"e"}}}));
    const std::string id = created["id"].asString();
    const std::string path = "/v1/crm/contacts/" + id;

    auto events = eventsAbout(server, account.companyId, "crm.contact.created", id);
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), events.size());
    CPPUNIT_ASSERT_EQUAL(created.dump(), events[0].dump());

    const Json updated = E2E_ASSERT_DATA(
        200, client.patch(path, Json::object({{"job_title", "Chief"}}), bearer(account.token)));
    const Json read = E2E_ASSERT_DATA(200, client.get(path, bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(read.dump(), updated.dump());
    events = eventsAbout(server, account.companyId, "crm.contact.updated", id);
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), events.size());
    CPPUNIT_ASSERT_EQUAL(read.dump(), events[0].dump());

    // Refused and empty changes record nothing; nor does a PATCH whose every
    // value is the stored one (after its rule: trimmed, the e-mail
    // lower-cased, the same tags): the record as it was, updated_at kept.
    E2E_ASSERT_ERROR(422, client.patch(path, Json::object({{"name", ""}}), bearer(account.token)));
    E2E_ASSERT_DATA(200, client.patch(path, Json::object(), bearer(account.token)));
    const Json same = E2E_ASSERT_DATA(
        200, client.patch(path,
                          Json::object({{"name", "  Kim "},
                                        {"email", toUpper(created["email"].asString())},
                                        {"job_title", "Chief"},
                                        {"tags", Json::Array{"e"}},
                                        {"company_id", Json()}}),
                          bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(read.dump(), same.dump());
    CPPUNIT_ASSERT_EQUAL(std::size_t(1),
                         eventsAbout(server, account.companyId, "crm.contact.updated", id).size());

    E2E_ASSERT_DATA(200, client.del(path, bearer(account.token)));
    events = eventsAbout(server, account.companyId, "crm.contact.deleted", id);
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), events.size());
    CPPUNIT_ASSERT_EQUAL(Json::object({{"id", id}}).dump(), events[0].dump());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ContactsCrudTest);
