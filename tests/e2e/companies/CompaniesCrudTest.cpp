// CRM companies one at a time (API CRM companies; decisions §1, §7): create,
// read, partial update, delete, their errors, and the events they record.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/companies/CompaniesSuite.h"
#include "rapport/ids.h"
#include "rapport/time.h"

using namespace rapport::e2e;
using namespace rapport::e2e::crm;

namespace {

std::int64_t micros(const Json& timestamp) {
  return *rapport::parseIsoTimestamp(timestamp.asString());
}

Json fullCompany(const std::string& document) {
  return Json::object({{"name", "  Initech  "},
                       {"document", document},
                       {"industry", "Software"},
                       {"website", "https://initech.example"},
                       {"size", "51-200"},
                       {"annual_revenue", 1250000000},
                       {"phone", "+1 555 0100"},
                       {"tags", Json::Array{"Enterprise", "partner", "ENTERPRISE"}},
                       {"notes", "TPS reports."}});
}

}  // namespace

class CompaniesCrudTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(CompaniesCrudTest);
  CPPUNIT_TEST(testEveryRouteNeedsAToken);
  CPPUNIT_TEST(testCreateReturnsTheWholeCompany);
  CPPUNIT_TEST(testCreateWithNameOnly);
  CPPUNIT_TEST(testMalformedBodyIs400);
  CPPUNIT_TEST(testFieldRules);
  CPPUNIT_TEST(testDuplicateDocumentIs409);
  CPPUNIT_TEST(testReadMissingWrongPrefixOrOtherTenantIs404);
  CPPUNIT_TEST(testPatchChangesOnlyWhatIsSent);
  CPPUNIT_TEST(testPatchRules);
  CPPUNIT_TEST(testDelete);
  CPPUNIT_TEST(testEventsCarryWhatGetReturns);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testEveryRouteNeedsAToken() {
    HttpClient client(companiesServer().port());
    E2E_ASSERT_ERROR(401, client.get("/v1/crm/companies"));
    E2E_ASSERT_ERROR(401, client.post("/v1/crm/companies", Json::object({{"name", "x"}})));
    E2E_ASSERT_ERROR(401, client.get("/v1/crm/companies/comp_x"));
    E2E_ASSERT_ERROR(401, client.patch("/v1/crm/companies/comp_x", Json::object()));
    E2E_ASSERT_ERROR(401, client.del("/v1/crm/companies/comp_x"));
    E2E_ASSERT_ERROR(401, client.get("/v1/crm/companies", bearer("not-a-token")));
  }

  void testCreateReturnsTheWholeCompany() {
    HttpClient client(companiesServer().port());
    const Account account = registerUser(client, "companies-create");
    Json body = fullCompany("DOC-" + randomHex(6));
    body.set("id", "comp_chosen");
    body.set("updated_at", "2000-01-01T00:00:00Z");
    body.set("unknown", Json::Array{});
    const HttpResult result = client.post("/v1/crm/companies", body, bearer(account.token));
    const Json company = E2E_ASSERT_DATA(201, result);
    E2E_ASSERT_COMMON_HEADERS(result);

    const std::vector<std::string> keys = {
        "id",    "name", "document", "industry",   "website",    "size",         "annual_revenue",
        "phone", "tags", "notes",    "created_at", "updated_at", "custom_fields"};
    CPPUNIT_ASSERT_EQUAL_MESSAGE(company.dump(), keys.size(), company.size());
    for (const std::string& key : keys) CPPUNIT_ASSERT_MESSAGE(key, company.contains(key));
    CPPUNIT_ASSERT(rapport::hasPrefix(company["id"].asString(), "comp_"));
    CPPUNIT_ASSERT(company["id"].asString() != "comp_chosen");
    CPPUNIT_ASSERT(company["id"].asString() != account.companyId);
    CPPUNIT_ASSERT_EQUAL(std::string("Initech"), company["name"].asString());
    CPPUNIT_ASSERT(company["document"] == body["document"]);
    CPPUNIT_ASSERT_EQUAL(std::string("Software"), company["industry"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("https://initech.example"), company["website"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("51-200"), company["size"].asString());
    CPPUNIT_ASSERT(company["annual_revenue"].isInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1250000000), company["annual_revenue"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::string("+1 555 0100"), company["phone"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string(R"(["Enterprise","partner"])"), company["tags"].dump());
    CPPUNIT_ASSERT_EQUAL(std::string("TPS reports."), company["notes"].asString());
    CPPUNIT_ASSERT(E2E_ASSERT_ISO_UTC(company["created_at"]) > unixNow() - 60);
    CPPUNIT_ASSERT(company["created_at"] == company["updated_at"]);

    const Json read = E2E_ASSERT_DATA(
        200, client.get("/v1/crm/companies/" + company["id"].asString(), bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(company.dump(), read.dump());
  }

  void testCreateWithNameOnly() {
    HttpClient client(companiesServer().port());
    const Account account = registerUser(client, "companies-minimal");
    const Json company = createCrmCompany(client, account.token, Json::object({{"name", "Min"}}));
    for (const char* key :
         {"document", "industry", "website", "size", "annual_revenue", "phone", "notes"}) {
      CPPUNIT_ASSERT_MESSAGE(key, company[key].isNull());
    }
    CPPUNIT_ASSERT_EQUAL(std::string("[]"), company["tags"].dump());
    const Json zero = createCrmCompany(
        client, account.token,
        Json::object({{"name", "Zero"}, {"annual_revenue", 0}, {"document", " "}}));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), zero["annual_revenue"].asInt());
    CPPUNIT_ASSERT(zero["document"].isNull());
  }

  void testMalformedBodyIs400() {
    HttpClient client(companiesServer().port());
    const Account account = registerUser(client, "companies-400");
    const rapport::Headers headers = bearer(account.token, {{"Content-Type", "application/json"}});
    for (const std::string& body : {std::string("{"), std::string("[]"), std::string("null"),
                                    std::string("{\"name\":\"a\",}")}) {
      E2E_ASSERT_ERROR(400, client.send("POST", "/v1/crm/companies", body, headers));
    }
    const Json company = createCrmCompany(client, account.token, Json::object({{"name", "Ok"}}));
    E2E_ASSERT_ERROR(400, client.send("PATCH", "/v1/crm/companies/" + company["id"].asString(),
                                      std::string("nope"), headers));
  }

  void testFieldRules() {
    HttpClient client(companiesServer().port());
    const Account account = registerUser(client, "companies-422");
    const auto post = [&](Json body) {
      return client.post("/v1/crm/companies", body, bearer(account.token));
    };
    const auto withName = [](const char* field, Json value) {
      return Json::object({{"name", "Co"}, {field, std::move(value)}});
    };
    CRM_ASSERT_FIELD_ERROR(post(Json::object()), "name", "The name field is required.");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"name", Json()}})), "name", "");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"name", " "}})), "name", "");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"name", true}})), "name", "");
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"name", std::string(256, 'n')}})), "name",
                           "The name may not be greater than 255 characters.");
    CRM_ASSERT_FIELD_ERROR(post(withName("document", std::string(101, 'd'))), "document", "");
    E2E_ASSERT_DATA(201, post(withName("document", std::string(100, 'd'))));
    CRM_ASSERT_FIELD_ERROR(post(withName("industry", std::string(101, 'i'))), "industry", "");
    CRM_ASSERT_FIELD_ERROR(post(withName("website", std::string(256, 'w'))), "website", "");
    CRM_ASSERT_FIELD_ERROR(post(withName("size", std::string(51, 's'))), "size", "");
    CRM_ASSERT_FIELD_ERROR(post(withName("phone", std::string(51, '1'))), "phone", "");
    CRM_ASSERT_FIELD_ERROR(post(withName("notes", std::string(10001, 'n'))), "notes", "");
    CRM_ASSERT_FIELD_ERROR(post(withName("annual_revenue", -1)), "annual_revenue",
                           "The annual_revenue must be at least 0.");
    CRM_ASSERT_FIELD_ERROR(post(withName("annual_revenue", 10.5)), "annual_revenue",
                           "The annual_revenue must be an integer.");
    CRM_ASSERT_FIELD_ERROR(post(withName("annual_revenue", "100")), "annual_revenue", "");
    CRM_ASSERT_FIELD_ERROR(post(withName("tags", Json::object())), "tags", "");
    CRM_ASSERT_FIELD_ERROR(post(withName("tags", Json::Array{"ok", std::string(51, 't')})),
                           "tags.1", "");
    CRM_ASSERT_FIELD_ERROR(post(withName("industry", 3)), "industry", "");
    // A NUL character (PostgreSQL text cannot hold one) is refused on both engines.
    const std::string nul("a\0b", 3);
    CRM_ASSERT_FIELD_ERROR(post(Json::object({{"name", nul}})), "name",
                           "The name must not contain null characters.");
    CRM_ASSERT_FIELD_ERROR(post(withName("document", nul)), "document",
                           "The document must not contain null characters.");
    CRM_ASSERT_FIELD_ERROR(post(withName("tags", Json::Array{nul})), "tags.0",
                           "The tags.0 must not contain null characters.");
    // A large revenue stays exact.
    const Json big = E2E_ASSERT_DATA(201, post(withName("annual_revenue", 9007199254740993LL)));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(9007199254740993LL), big["annual_revenue"].asInt());
    const Json error = CRM_ASSERT_FIELD_ERROR(
        post(Json::object({{"annual_revenue", -5}, {"size", 1}})), "name", "");
    CPPUNIT_ASSERT(error["errors"].contains("annual_revenue"));
    CPPUNIT_ASSERT(error["errors"].contains("size"));
  }

  void testDuplicateDocumentIs409() {
    HttpClient client(companiesServer().port());
    const Account account = registerUser(client, "companies-409");
    const Account other = registerUser(client, "companies-409-other");
    const std::string document = "12.345.678/0001-" + randomHex(4);
    createCrmCompany(client, account.token,
                     Json::object({{"name", "One"}, {"document", document}}));
    const std::string message = "A company with this document already exists.";
    CRM_ASSERT_ERROR_MESSAGE(
        409, message,
        client.post("/v1/crm/companies", Json::object({{"name", "Two"}, {"document", document}}),
                    bearer(account.token)));
    CRM_ASSERT_ERROR_MESSAGE(
        409, message,
        client.post("/v1/crm/companies",
                    Json::object({{"name", "Padded"}, {"document", "  " + document + " "}}),
                    bearer(account.token)));
    // Unique per tenant only; companies without a document never collide.
    createCrmCompany(client, other.token,
                     Json::object({{"name", "Theirs"}, {"document", document}}));
    createCrmCompany(client, account.token, Json::object({{"name", "No doc 1"}}));
    createCrmCompany(client, account.token, Json::object({{"name", "No doc 2"}}));
    const Json third =
        createCrmCompany(client, account.token,
                         Json::object({{"name", "Third"}, {"document", "X-" + randomHex(4)}}));
    CRM_ASSERT_ERROR_MESSAGE(
        409, message,
        client.patch("/v1/crm/companies/" + third["id"].asString(),
                     Json::object({{"document", document}}), bearer(account.token)));
    // Keeping one's own document is no conflict.
    E2E_ASSERT_DATA(200,
                    client.patch("/v1/crm/companies/" + third["id"].asString(),
                                 Json::object({{"document", third["document"]}, {"name", "3"}}),
                                 bearer(account.token)));
  }

  void testReadMissingWrongPrefixOrOtherTenantIs404() {
    HttpClient client(companiesServer().port());
    const Account account = registerUser(client, "companies-404");
    const Account other = registerUser(client, "companies-404-other");
    const Json theirs = createCrmCompany(client, other.token, Json::object({{"name", "Theirs"}}));
    const Json contact = createContact(client, account.token, Json::object({{"name", "Person"}}));
    for (const std::string& id : {std::string("comp_missing"), theirs["id"].asString(),
                                  contact["id"].asString(), account.companyId, std::string("x")}) {
      const std::string path = "/v1/crm/companies/" + id;
      CRM_ASSERT_ERROR_MESSAGE(404, "Company not found.", client.get(path, bearer(account.token)));
      CRM_ASSERT_ERROR_MESSAGE(
          404, "Company not found.",
          client.patch(path, Json::object({{"name", "Hijack"}}), bearer(account.token)));
      CRM_ASSERT_ERROR_MESSAGE(404, "Company not found.", client.del(path, bearer(account.token)));
    }
    const Json still = E2E_ASSERT_DATA(
        200, client.get("/v1/crm/companies/" + theirs["id"].asString(), bearer(other.token)));
    CPPUNIT_ASSERT_EQUAL(theirs.dump(), still.dump());
  }

  void testPatchChangesOnlyWhatIsSent() {
    HttpClient client(companiesServer().port());
    const Account account = registerUser(client, "companies-patch");
    const Json original = createCrmCompany(client, account.token, fullCompany("P-" + randomHex(6)));
    const std::string path = "/v1/crm/companies/" + original["id"].asString();

    const Json patched = E2E_ASSERT_DATA(
        200, client.patch(path, Json::object({{"annual_revenue", 99}}), bearer(account.token)));
    Json expected = original;
    expected.set("annual_revenue", 99);
    expected.set("updated_at", patched["updated_at"]);
    CPPUNIT_ASSERT_EQUAL(expected.dump(), patched.dump());
    CPPUNIT_ASSERT(micros(patched["updated_at"]) > micros(original["updated_at"]));
    CPPUNIT_ASSERT(patched["created_at"] == original["created_at"]);
    CPPUNIT_ASSERT_EQUAL(patched.dump(),
                         E2E_ASSERT_DATA(200, client.get(path, bearer(account.token))).dump());

    const Json cleared = E2E_ASSERT_DATA(200, client.patch(path,
                                                           Json::object({{"document", Json()},
                                                                         {"industry", Json()},
                                                                         {"website", Json()},
                                                                         {"size", Json()},
                                                                         {"annual_revenue", Json()},
                                                                         {"phone", Json()},
                                                                         {"tags", Json()},
                                                                         {"notes", Json()}}),
                                                           bearer(account.token)));
    for (const char* key :
         {"document", "industry", "website", "size", "annual_revenue", "phone", "notes"}) {
      CPPUNIT_ASSERT_MESSAGE(key, cleared[key].isNull());
    }
    CPPUNIT_ASSERT_EQUAL(std::string("[]"), cleared["tags"].dump());
    CPPUNIT_ASSERT_EQUAL(std::string("Initech"), cleared["name"].asString());

    const Json renamed = E2E_ASSERT_DATA(
        200,
        client.patch(path, Json::object({{"name", "Initrode"}, {"tags", Json::Array{"b", "a"}}}),
                     bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(std::string("Initrode"), renamed["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string(R"(["b","a"])"), renamed["tags"].dump());
    const Json same = E2E_ASSERT_DATA(
        200, client.patch(path, Json::object({{"id", "comp_other"}}), bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(renamed.dump(), same.dump());
  }

  void testPatchRules() {
    HttpClient client(companiesServer().port());
    const Account account = registerUser(client, "companies-patch-422");
    const Json company = createCrmCompany(client, account.token, Json::object({{"name", "Rules"}}));
    const std::string path = "/v1/crm/companies/" + company["id"].asString();
    const auto patch = [&](Json body) { return client.patch(path, body, bearer(account.token)); };
    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"name", Json()}})), "name",
                           "The name field is required.");
    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"name", ""}})), "name", "");
    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"annual_revenue", -1}})), "annual_revenue", "");
    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"website", std::string(256, 'w')}})), "website",
                           "");
    CRM_ASSERT_FIELD_ERROR(patch(Json::object({{"tags", "x"}})), "tags", "");
    CPPUNIT_ASSERT_EQUAL(company.dump(),
                         E2E_ASSERT_DATA(200, client.get(path, bearer(account.token))).dump());
  }

  void testDelete() {
    HttpClient client(companiesServer().port());
    const Account account = registerUser(client, "companies-delete");
    const Json company = createCrmCompany(
        client, account.token,
        Json::object(
            {{"name", "Gone"}, {"document", "G-" + randomHex(4)}, {"tags", Json::Array{"t"}}}));
    const std::string path = "/v1/crm/companies/" + company["id"].asString();
    const Json data = E2E_ASSERT_DATA(200, client.del(path, bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(Json::object({{"id", company["id"]}}).dump(), data.dump());
    CRM_ASSERT_ERROR_MESSAGE(404, "Company not found.", client.get(path, bearer(account.token)));
    CRM_ASSERT_ERROR_MESSAGE(404, "Company not found.", client.del(path, bearer(account.token)));
    const Json list = getBody(client, account.token, "/v1/crm/companies?tag=t");
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), list["meta"]["total"].asInt());
    // The document is free again.
    createCrmCompany(client, account.token,
                     Json::object({{"name", "Again"}, {"document", company["document"]}}));
  }

  void testEventsCarryWhatGetReturns() {
    ServerProcess& server = companiesServer();
    HttpClient client(server.port());
    const Account account = registerUser(client, "companies-events");
    const Json created = createCrmCompany(client, account.token, fullCompany("E-" + randomHex(6)));
    const std::string id = created["id"].asString();
    const std::string path = "/v1/crm/companies/" + id;

    auto events = eventsAbout(server, account.companyId, "crm.company.created", id);
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), events.size());
    CPPUNIT_ASSERT_EQUAL(created.dump(), events[0].dump());

    const Json updated = E2E_ASSERT_DATA(
        200, client.patch(path, Json::object({{"size", "1-10"}}), bearer(account.token)));
    const Json read = E2E_ASSERT_DATA(200, client.get(path, bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(read.dump(), updated.dump());
    events = eventsAbout(server, account.companyId, "crm.company.updated", id);
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), events.size());
    CPPUNIT_ASSERT_EQUAL(read.dump(), events[0].dump());

    E2E_ASSERT_ERROR(
        422, client.patch(path, Json::object({{"annual_revenue", -1}}), bearer(account.token)));
    E2E_ASSERT_DATA(200, client.patch(path, Json::object(), bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(std::size_t(1),
                         eventsAbout(server, account.companyId, "crm.company.updated", id).size());

    E2E_ASSERT_DATA(200, client.del(path, bearer(account.token)));
    events = eventsAbout(server, account.companyId, "crm.company.deleted", id);
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), events.size());
    CPPUNIT_ASSERT_EQUAL(Json::object({{"id", id}}).dump(), events[0].dump());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(CompaniesCrudTest);
