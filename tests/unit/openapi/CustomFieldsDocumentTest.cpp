// Custom fields in the API document (openapi/CustomFieldsDocument.h,
// decisions §14): the generic document loses the engine's markers and keeps
// custom_fields a free object; a company's has each marked property replaced
// by rapport::customFieldsSchema of its definitions (each record type asked
// once, wherever the marker is); ApiDocument and GET /v1/openapi.json pick
// one or the other by the caller's token, privately.
#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "http/Router.h"
#include "openapi/ApiSchemas.h"
#include "openapi/CustomFieldsDocument.h"
#include "openapi/OpenApiDocument.h"
#include "openapi/OpenApiRoute.h"
#include "rapport/api_doc.h"
#include "rapport/custom_fields.h"

using rapport::Json;
using namespace rapport::host;
namespace schema = rapport::schema;

namespace {

// The property the engine writes: the free object, marked.
Json markedProperty(const std::string& recordType) {
  return schema::anyObject("The record's custom fields.")
      .set(rapport::kCustomFieldsMarker, recordType);
}

Json recordSchema(const std::string& recordType) {
  return schema::object({{"id", schema::string()}, {"custom_fields", markedProperty(recordType)}},
                        {"id"});
}

// Markers where the engine and the host put them: record components, and a
// copy inline in a route's body (as a batch's items copy the create's body),
// inside an array.
Json markedDocument() {
  return Json::object(
      {{"paths", Json::object({{"/v1/crm/contacts/batch",
                                Json::object({{"anyOf", Json::Array{recordSchema("contact"),
                                                                    recordSchema("deal")}}})}})},
       {"components",
        Json::object({{"schemas", Json::object({{"Contact", recordSchema("contact")},
                                                {"Company", recordSchema("company")}})}})}});
}

const Json& customFieldsOf(const Json& document, const std::string& component) {
  return document["components"]["schemas"][component]["properties"]["custom_fields"];
}

bool hasMarker(const Json& document) {
  return document.dump().find(rapport::kCustomFieldsMarker) != std::string::npos;
}

// Two definitions of a contact: what a company sees in its document.
rapport::CustomFieldSet contactFields() {
  rapport::CustomFieldDefinition source;
  source.id = "cf_1";
  source.recordType = "contact";
  source.key = "lead_source";
  source.label = "Lead source";
  source.type = rapport::CustomFieldType::Select;
  source.options = {{"web", "Web"}, {"fair", "Trade fair"}};
  rapport::CustomFieldDefinition renewal;
  renewal.id = "cf_2";
  renewal.recordType = "contact";
  renewal.key = "renewal";
  renewal.label = "Renewal date";
  renewal.type = rapport::CustomFieldType::Date;
  return {source, renewal};
}

// A database with no definitions that records what it was asked.
class EmptyDefinitions : public rapport::Queryable {
 public:
  rapport::Dialect dialect() const override { return rapport::Dialect::SQLite; }
  rapport::Result query(std::string_view, const rapport::Params& params) override {
    for (const rapport::Value& value : params) {
      if (!value.isNull()) seen.push_back(value.asString());
    }
    ++queries;
    return {};
  }
  std::int64_t exec(std::string_view, const rapport::Params&) override {
    throw std::logic_error("the document writes nothing");
  }
  std::vector<std::string> seen;  // every parameter of every query
  int queries = 0;
};

}  // namespace

class CustomFieldsDocumentTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(CustomFieldsDocumentTest);
  CPPUNIT_TEST(testGenericDocumentLosesTheMarkers);
  CPPUNIT_TEST(testCompanyDocumentDescribesItsFields);
  CPPUNIT_TEST(testApiDocumentServesBoth);
  CPPUNIT_TEST(testRouteChoosesByTokenPrivately);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testGenericDocumentLosesTheMarkers() {
    Json document = markedDocument();
    CPPUNIT_ASSERT_EQUAL(std::size_t{4}, removeCustomFieldMarkers(document));
    CPPUNIT_ASSERT_MESSAGE(document.dump(), !hasMarker(document));
    // The engine's free object, as it is.
    CPPUNIT_ASSERT(customFieldsOf(document, "Contact") ==
                   schema::anyObject("The record's custom fields."));
    CPPUNIT_ASSERT(document["paths"]["/v1/crm/contacts/batch"]["anyOf"]
                       .asArray()[1]["properties"]["custom_fields"] ==
                   schema::anyObject("The record's custom fields."));
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, removeCustomFieldMarkers(document));
  }

  void testCompanyDocumentDescribesItsFields() {
    Json document = markedDocument();
    // A marker that names no record type is dropped, not replaced.
    document.find("components")
        ->find("schemas")
        ->set("Odd", schema::object({{"custom_fields",
                                      schema::anyObject().set(rapport::kCustomFieldsMarker, 3)}}));
    std::map<std::string, int> asked;
    replaceCustomFieldMarkers(document, [&asked](const std::string& recordType) {
      ++asked[recordType];
      return rapport::customFieldsSchema(recordType == "contact" ? contactFields()
                                                                 : rapport::CustomFieldSet{});
    });
    CPPUNIT_ASSERT_MESSAGE(document.dump(), !hasMarker(document));
    // Each record type asked once, though the contact is marked twice.
    CPPUNIT_ASSERT(
        (asked == std::map<std::string, int>{{"company", 1}, {"contact", 1}, {"deal", 1}}));
    const Json described = rapport::customFieldsSchema(contactFields());
    CPPUNIT_ASSERT_EQUAL(described.dump(), customFieldsOf(document, "Contact").dump());
    const Json& inline_ = document["paths"]["/v1/crm/contacts/batch"]["anyOf"];
    CPPUNIT_ASSERT_EQUAL(described.dump(),
                         inline_.asArray()[0]["properties"]["custom_fields"].dump());
    // Without definitions: the engine's free object.
    CPPUNIT_ASSERT_EQUAL(rapport::customFieldsSchema({}).dump(),
                         customFieldsOf(document, "Company").dump());
    CPPUNIT_ASSERT(customFieldsOf(document, "Odd") == schema::anyObject());
    // Everything else as it was.
    CPPUNIT_ASSERT(document["components"]["schemas"]["Contact"]["properties"]["id"] ==
                   schema::string());
    CPPUNIT_ASSERT(document["components"]["schemas"]["Contact"]["required"] ==
                   Json(Json::Array{"id"}));
  }

  void testApiDocumentServesBoth() {
    Router router;
    router.add(
        "GET", "/v1/crm/contacts/{id}",
        [](const rapport::Request&) { return rapport::Response::ok(Json::object()); }, {},
        "contacts");
    router.describe("GET", "/v1/crm/contacts/{id}", {.data = schema::ref("Contact")}, "contacts");
    ApiSchemas schemas;
    schemas.add("Contact", recordSchema("contact"), "contacts");
    const ApiDocument document(router, schemas, nullptr, nullptr);
    EmptyDefinitions db;
    const Json company = document.forCompany(db, "comp_1");
    CPPUNIT_ASSERT(!hasMarker(company));
    CPPUNIT_ASSERT_EQUAL(rapport::customFieldsSchema({}).dump(),
                         customFieldsOf(company, "Contact").dump());
    CPPUNIT_ASSERT(db.queries > 0);
    CPPUNIT_ASSERT(std::find(db.seen.begin(), db.seen.end(), "comp_1") != db.seen.end());
    const Json& generic = document.get();
    CPPUNIT_ASSERT(!hasMarker(generic));
    CPPUNIT_ASSERT(customFieldsOf(generic, "Contact") ==
                   schema::anyObject("The record's custom fields."));

    // A document without markers: every company's is the generic one, read
    // from nothing.
    ApiSchemas plain;
    plain.add("Contact", schema::object({{"id", schema::string()}}), "contacts");
    const ApiDocument unmarked(router, plain, nullptr, nullptr);
    EmptyDefinitions untouched;
    CPPUNIT_ASSERT(unmarked.forCompany(untouched, "comp_1") == unmarked.get());
    CPPUNIT_ASSERT_EQUAL(0, untouched.queries);
  }

  void testRouteChoosesByTokenPrivately() {
    Router router;
    ApiSchemas schemas;
    schemas.add("Contact", recordSchema("contact"), "contacts");
    const ApiDocument document(router, schemas, nullptr, nullptr);
    EmptyDefinitions db;
    registerOpenApiRoute(router, document, db);
    const RouteMatch match = router.match("GET", "/v1/openapi.json");
    CPPUNIT_ASSERT(match.kind == RouteMatch::Kind::Found);
    CPPUNIT_ASSERT(match.route->options.access == rapport::Access::Public);
    const auto headersOf = [](const rapport::Response& response) {
      return std::map<std::string, std::string>(response.headers.begin(), response.headers.end());
    };
    const std::map<std::string, std::string> privately = {{"Cache-Control", "private"},
                                                          {"Vary", "Authorization"}};

    rapport::Request anonymous;
    anonymous.method = "GET";
    anonymous.path = "/v1/openapi.json";
    const rapport::Response generic = match.route->handler(anonymous);
    CPPUNIT_ASSERT_EQUAL(200, generic.status);
    CPPUNIT_ASSERT(*generic.data == document.get());
    CPPUNIT_ASSERT(headersOf(generic) == privately);
    CPPUNIT_ASSERT_EQUAL(0, db.queries);

    rapport::Request member = anonymous;
    member.identity = {.authenticated = true,
                       .userId = "user_1",
                       .companyId = "comp_7",
                       .role = rapport::Role::Member,
                       .tokenId = "tok_1"};
    const rapport::Response company = match.route->handler(member);
    CPPUNIT_ASSERT_EQUAL(200, company.status);
    CPPUNIT_ASSERT(headersOf(company) == privately);
    CPPUNIT_ASSERT(std::find(db.seen.begin(), db.seen.end(), "comp_7") != db.seen.end());
    CPPUNIT_ASSERT_EQUAL(rapport::customFieldsSchema({}).dump(),
                         customFieldsOf(*company.data, "Contact").dump());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(CustomFieldsDocumentTest);
