// Contacts and CRM companies together (API Contacts, CRM companies; decisions
// §7, §11): the sub-list GET /crm/companies/{id}/contacts, unlinking when a
// company is deleted, and contacts without the companies module.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/contacts/ContactsSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::crm;

namespace {
using Ids = std::vector<std::string>;
}  // namespace

class ContactsCompanyLinkTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ContactsCompanyLinkTest);
  CPPUNIT_TEST(testContactsOfACompany);
  CPPUNIT_TEST(testContactsOfAnAbsentCompanyIs404);
  CPPUNIT_TEST(testDeletingACompanyUnlinksItsContacts);
  CPPUNIT_TEST(testWithoutTheCompaniesModule);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testContactsOfACompany() {
    HttpClient client(contactsServer().port());
    const Account account = registerUser(client, "sublist");
    const std::string& token = account.token;
    const std::string a =
        createCrmCompany(client, token, Json::object({{"name", "A"}}))["id"].asString();
    const std::string b =
        createCrmCompany(client, token, Json::object({{"name", "B"}}))["id"].asString();
    const auto add = [&](const std::string& name, const std::string& company) {
      return createContact(client, token, Json::object({{"name", name}, {"company_id", company}}));
    };
    const Json zoe = add("Zoe", a);
    const Json amy = add("amy", a);
    add("Other", b);
    const Json max = add("Max", a);
    createContact(client, token, Json::object({{"name", "Unlinked"}}));

    const std::string path = "/v1/crm/companies/" + a + "/contacts";
    Json body = getBody(client, token, path);
    CPPUNIT_ASSERT(idsOf(body) ==
                   (Ids{max["id"].asString(), amy["id"].asString(), zoe["id"].asString()}));
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":1,"per_page":20,"total":3,"last_page":1})"),
                         body["meta"].dump());
    // Full contacts, as GET returns them.
    CPPUNIT_ASSERT_EQUAL(zoe.dump(), body["data"].asArray().back().dump());

    body = getBody(client, token, path + "?sort=name&per_page=2");
    CPPUNIT_ASSERT(idsOf(body) == (Ids{amy["id"].asString(), max["id"].asString()}));
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":1,"per_page":2,"total":3,"last_page":2})"),
                         body["meta"].dump());
    body = getBody(client, token, path + "?sort=-name&page=2&per_page=2");
    CPPUNIT_ASSERT(idsOf(body) == (Ids{amy["id"].asString()}));
    body = getBody(client, token, path + "?page=5");
    CPPUNIT_ASSERT_EQUAL(std::string("[]"), body["data"].dump());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(3), body["meta"]["total"].asInt());
    // The list's other filters apply inside the company.
    body = getBody(client, token, path + "?search=am");
    CPPUNIT_ASSERT(idsOf(body) == (Ids{amy["id"].asString()}));

    CRM_ASSERT_FIELD_ERROR(client.get(path + "?sort=title", bearer(token)), "sort", "");
    CRM_ASSERT_FIELD_ERROR(client.get(path + "?per_page=500", bearer(token)), "per_page", "");

    const Json empty = getBody(
        client, token,
        "/v1/crm/companies/" +
            createCrmCompany(client, token, Json::object({{"name", "Empty"}}))["id"].asString() +
            "/contacts");
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":1,"per_page":20,"total":0,"last_page":1})"),
                         empty["meta"].dump());
  }

  void testContactsOfAnAbsentCompanyIs404() {
    HttpClient client(contactsServer().port());
    const Account account = registerUser(client, "sublist-404");
    const Account other = registerUser(client, "sublist-404-other");
    const Json theirs = createCrmCompany(client, other.token, Json::object({{"name", "Theirs"}}));
    createContact(client, other.token,
                  Json::object({{"name", "Hidden"}, {"company_id", theirs["id"]}}));
    const Json contact = createContact(client, account.token, Json::object({{"name", "Mine"}}));
    for (const std::string& id : {std::string("comp_missing"), theirs["id"].asString(),
                                  contact["id"].asString(), account.companyId}) {
      CRM_ASSERT_ERROR_MESSAGE(
          404, "Company not found.",
          client.get("/v1/crm/companies/" + id + "/contacts", bearer(account.token)));
    }
  }

  void testDeletingACompanyUnlinksItsContacts() {
    ServerProcess& server = contactsServer();
    HttpClient client(server.port());
    const Account account = registerUser(client, "unlink");
    const Account other = registerUser(client, "unlink-other");
    const std::string& token = account.token;
    const Json doomed = createCrmCompany(client, token, Json::object({{"name", "Doomed"}}));
    const Json kept = createCrmCompany(client, token, Json::object({{"name", "Kept"}}));
    const Json first = createContact(
        client, token, Json::object({{"name", "First"}, {"company_id", doomed["id"]}}));
    const Json second = createContact(
        client, token,
        Json::object(
            {{"name", "Second"}, {"company_id", doomed["id"]}, {"tags", Json::Array{"t"}}}));
    const Json elsewhere = createContact(
        client, token, Json::object({{"name", "Elsewhere"}, {"company_id", kept["id"]}}));
    const Json theirs = createContact(client, other.token, Json::object({{"name", "Theirs"}}));

    const HttpResult deleted =
        client.del("/v1/crm/companies/" + doomed["id"].asString(), bearer(token));
    CPPUNIT_ASSERT_EQUAL(Json::object({{"id", doomed["id"]}}).dump(),
                         E2E_ASSERT_DATA(200, deleted).dump());

    for (const Json& before : {first, second}) {
      const std::string id = before["id"].asString();
      const Json after = E2E_ASSERT_DATA(200, client.get("/v1/crm/contacts/" + id, bearer(token)));
      CPPUNIT_ASSERT_MESSAGE(after.dump(), after["company_id"].isNull());
      CPPUNIT_ASSERT(after["updated_at"] != before["updated_at"]);
      // Everything else is as it was.
      Json expected = before;
      expected.set("company_id", Json());
      expected.set("updated_at", after["updated_at"]);
      CPPUNIT_ASSERT_EQUAL(expected.dump(), after.dump());
      // Unlinking records no contact event.
      CPPUNIT_ASSERT(eventsAbout(server, account.companyId, "crm.contact.updated", id).empty());
    }
    const Json untouched = E2E_ASSERT_DATA(
        200, client.get("/v1/crm/contacts/" + elsewhere["id"].asString(), bearer(token)));
    CPPUNIT_ASSERT_EQUAL(elsewhere.dump(), untouched.dump());
    const Json theirsNow = E2E_ASSERT_DATA(
        200, client.get("/v1/crm/contacts/" + theirs["id"].asString(), bearer(other.token)));
    CPPUNIT_ASSERT_EQUAL(theirs.dump(), theirsNow.dump());

    const Json filtered =
        getBody(client, token, "/v1/crm/contacts?company_id=" + doomed["id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), filtered["meta"]["total"].asInt());
    CRM_ASSERT_ERROR_MESSAGE(
        404, "Company not found.",
        client.get("/v1/crm/companies/" + doomed["id"].asString() + "/contacts", bearer(token)));
    // The unlinked contact may not be linked again (company_id is set on create only).
    CRM_ASSERT_FIELD_ERROR(client.patch("/v1/crm/contacts/" + first["id"].asString(),
                                        Json::object({{"company_id", kept["id"]}}), bearer(token)),
                           "company_id", "The company_id cannot be changed after creation.");
  }

  void testWithoutTheCompaniesModule() {
    ServerProcess server(crmSettings("contacts"));
    HttpClient client(server.port());
    const Account account = registerUser(client, "no-companies");
    const std::string message =
        "The company_id field cannot be used: the companies module is not enabled.";
    CRM_ASSERT_FIELD_ERROR(
        client.post("/v1/crm/contacts", Json::object({{"name", "Lu"}, {"company_id", "comp_x"}}),
                    bearer(account.token)),
        "company_id", message);
    const Json contact = createContact(
        client, account.token, Json::object({{"name", "Lu"}, {"owner_id", account.userId}}));
    CPPUNIT_ASSERT(contact["company_id"].isNull());
    E2E_ASSERT_DATA(201, client.post("/v1/crm/contacts",
                                     Json::object({{"name", "Null link"}, {"company_id", Json()}}),
                                     bearer(account.token)));
    CRM_ASSERT_FIELD_ERROR(
        client.patch("/v1/crm/contacts/" + contact["id"].asString(),
                     Json::object({{"company_id", "comp_x"}}), bearer(account.token)),
        "company_id", message);
    CRM_ASSERT_FIELD_ERROR(client.get("/v1/crm/contacts?company_id=comp_x", bearer(account.token)),
                           "company_id", message);
    // Neither the companies routes nor the sub-list exist.
    E2E_ASSERT_ERROR(404, client.get("/v1/crm/companies/comp_x/contacts", bearer(account.token)));
    E2E_ASSERT_ERROR(404, client.get("/v1/crm/companies", bearer(account.token)));
    const Json list = getBody(client, account.token, "/v1/crm/contacts");
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), list["meta"]["total"].asInt());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ContactsCompanyLinkTest);
