// The per-company API document (decisions §14): GET /v1/openapi.json with a
// bearer token describes the token company's custom fields inside each record
// schema's custom_fields (a property per key: its type, an enum for a
// select, nullable); without a token custom_fields is a free object; another
// company's document shows none of them. The company's document passes the
// checks e2e.openapi runs on the generic one (swagger-parser, Redocly,
// Spectral: tests/e2e/openapi/validator/document_checks.mjs).
#include <cppunit/extensions/HelperMacros.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <set>

#include "e2e/custom_fields/CustomFieldsSuite.h"
#include "support/TestEnv.h"

using namespace rapport::e2e;
using namespace rapport::e2e::custom_fields;

namespace {

// The "type" of a schema as a set ("integer" or ["integer", "null"]).
std::set<std::string> typesOf(const Json& schema) {
  std::set<std::string> types;
  if (schema["type"].isString()) types.insert(schema["type"].asString());
  for (const Json& type : schema["type"].isArray() ? schema["type"].asArray() : Json::Array{}) {
    types.insert(type.asString());
  }
  return types;
}

// A schema that admits null: "null" among its types, null in its enum, or
// an anyOf/oneOf branch of type null.
bool nullable(const Json& schema) {
  if (typesOf(schema).count("null") > 0 || schema["nullable"] == Json(true)) return true;
  for (const Json& value : schema["enum"].isArray() ? schema["enum"].asArray() : Json::Array{}) {
    if (value.isNull()) return true;
  }
  for (const char* combinator : {"anyOf", "oneOf"}) {
    for (const Json& branch :
         schema[combinator].isArray() ? schema[combinator].asArray() : Json::Array{}) {
      if (nullable(branch)) return true;
    }
  }
  return false;
}

// The strings of a schema's enum (in a branch of anyOf/oneOf too).
std::set<std::string> enumOf(const Json& schema) {
  std::set<std::string> values;
  for (const Json& value : schema["enum"].isArray() ? schema["enum"].asArray() : Json::Array{}) {
    if (value.isString()) values.insert(value.asString());
  }
  for (const char* combinator : {"anyOf", "oneOf"}) {
    for (const Json& branch :
         schema[combinator].isArray() ? schema[combinator].asArray() : Json::Array{}) {
      const std::set<std::string> more = enumOf(branch);
      values.insert(more.begin(), more.end());
    }
  }
  return values;
}

// The types of a schema and of its anyOf/oneOf branches.
std::set<std::string> allTypesOf(const Json& schema) {
  std::set<std::string> types = typesOf(schema);
  for (const char* combinator : {"anyOf", "oneOf"}) {
    for (const Json& branch :
         schema[combinator].isArray() ? schema[combinator].asArray() : Json::Array{}) {
      const std::set<std::string> more = allTypesOf(branch);
      types.insert(more.begin(), more.end());
    }
  }
  return types;
}

// The "items" of an array schema (in a branch of anyOf/oneOf too).
Json itemsOf(const Json& schema) {
  if (schema.contains("items")) return schema["items"];
  for (const char* combinator : {"anyOf", "oneOf"}) {
    for (const Json& branch :
         schema[combinator].isArray() ? schema[combinator].asArray() : Json::Array{}) {
      if (branch.contains("items")) return branch["items"];
    }
  }
  return Json();
}

// `schema`, or the component schema its $ref names.
Json resolved(const Json& document, const Json& schema) {
  if (!schema["$ref"].isString()) return schema;
  const std::string ref = schema["$ref"].asString();
  const std::string prefix = "#/components/schemas/";
  CPPUNIT_ASSERT_MESSAGE(ref, ref.rfind(prefix, 0) == 0);
  return resolved(document, document["components"]["schemas"][ref.substr(prefix.size())]);
}

// The custom_fields schema of component schema `name` (resolved).
Json customFieldsSchemaOf(const Json& document, const std::string& name) {
  const Json& record = document["components"]["schemas"][name];
  CPPUNIT_ASSERT_MESSAGE("no schema " + name, record.isObject());
  const Json resolvedRecord = resolved(document, record);
  const Json* property = resolvedRecord["properties"].find("custom_fields");
  CPPUNIT_ASSERT_MESSAGE(name + " has no custom_fields: " + record.dump(), property != nullptr);
  return resolved(document, *property);
}

std::vector<std::string> propertyNames(const Json& schema) {
  std::vector<std::string> names;
  if (schema["properties"].isObject()) {
    for (const auto& member : schema["properties"].asObject()) names.push_back(member.first);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The generic description: an object any keys may be in.
void assertFreeObject(const Json& schema, const std::string& what) {
  CPPUNIT_ASSERT_MESSAGE(what + ": " + schema.dump(),
                         typesOf(schema).count("object") == 1 &&
                             schema["additionalProperties"] == Json(true) &&
                             propertyNames(schema).empty());
}

}  // namespace

class CfOpenApiTest : public CustomFieldsFixture {
  CPPUNIT_TEST_SUITE(CfOpenApiTest);
  CPPUNIT_TEST(testCompanyDocumentDescribesItsFields);
  CPPUNIT_TEST(testWithoutTokenTheGenericDocument);
  CPPUNIT_TEST(testAnotherCompanySeesItsOwn);
#ifdef RAPPORT_OPENAPI_VALIDATOR_DIR
  CPPUNIT_TEST(testCompanyDocumentPassesTheValidator);
#endif
  CPPUNIT_TEST_SUITE_END();

 public:
  // The fields every test of this suite defines.
  void defineSome() {
    define(fieldBody("source", "select", Json::object({{"options", optionsOf({"web", "tv"})}})));
    define(fieldBody("score", "number"));
    define(fieldBody("ratio", "decimal"));
    define(fieldBody("vip", "boolean"));
    define(fieldBody("met_at", "datetime"));
    define(
        fieldBody("segments", "multi_select", Json::object({{"options", optionsOf({"a", "b"})}})));
    define(fieldBody("referrer", "reference", Json::object({{"target", "contact"}})));
    define(
        fieldBody("contract_id", "text", Json::object({{"required", true}, {"default", "none"}})));
    define(fieldBody("channel", "text"), kDeals);
  }

  // GET /v1/openapi.json with `headers`, asserting 200: the document.
  Json document(const Headers& headers = {}) {
    const HttpResult result = client_->get("/v1/openapi.json", headers);
    E2E_ASSERT_STATUS(200, result);
    const Json doc = E2E_ASSERT_JSON(result);
    CPPUNIT_ASSERT_EQUAL(std::string("3.1.0"), doc["openapi"].asString());
    return doc;
  }

  void testCompanyDocumentDescribesItsFields() {
    defineSome();
    const Json doc = document(bearer(token_));
    const Json contact = customFieldsSchemaOf(doc, "Contact");
    CPPUNIT_ASSERT_MESSAGE(contact.dump(), typesOf(contact).count("object") == 1);
    CPPUNIT_ASSERT_MESSAGE(
        contact.dump(), propertyNames(contact) ==
                            (std::vector<std::string>{"contract_id", "met_at", "ratio", "referrer",
                                                      "score", "segments", "source", "vip"}));
    const Json& properties = contact["properties"];
    for (const auto& [key, schema] : properties.asObject()) {
      CPPUNIT_ASSERT_MESSAGE(key + " is not nullable: " + schema.dump(), nullable(schema));
    }
    CPPUNIT_ASSERT_MESSAGE(properties["source"].dump(),
                           enumOf(properties["source"]) == (std::set<std::string>{"web", "tv"}));
    CPPUNIT_ASSERT_MESSAGE(properties["score"].dump(),
                           allTypesOf(properties["score"]).count("integer"));
    CPPUNIT_ASSERT_MESSAGE(properties["ratio"].dump(),
                           allTypesOf(properties["ratio"]).count("number"));
    CPPUNIT_ASSERT_MESSAGE(properties["vip"].dump(),
                           allTypesOf(properties["vip"]).count("boolean"));
    CPPUNIT_ASSERT_MESSAGE(properties["met_at"].dump(),
                           allTypesOf(properties["met_at"]).count("string"));
    CPPUNIT_ASSERT_MESSAGE(properties["segments"].dump(),
                           allTypesOf(properties["segments"]).count("array") &&
                               enumOf(resolved(doc, itemsOf(properties["segments"]))) ==
                                   (std::set<std::string>{"a", "b"}));
    CPPUNIT_ASSERT_MESSAGE(properties["contract_id"].dump(),
                           allTypesOf(properties["contract_id"]).count("string"));
    // Every key is present in answers.
    std::set<std::string> required;
    for (const Json& key :
         contact["required"].isArray() ? contact["required"].asArray() : Json::Array{}) {
      required.insert(key.asString());
    }
    CPPUNIT_ASSERT_MESSAGE(contact.dump(), required.size() == properties.size());
    // Deals carry their own; CRM companies and activities have none.
    CPPUNIT_ASSERT(propertyNames(customFieldsSchemaOf(doc, "Deal")) ==
                   (std::vector<std::string>{"channel"}));
    CPPUNIT_ASSERT(propertyNames(customFieldsSchemaOf(doc, "CrmCompany")).empty());
    CPPUNIT_ASSERT(propertyNames(customFieldsSchemaOf(doc, "Activity")).empty());
    // The document changes with the definitions.
    E2E_ASSERT_DATA(200, client_->del(fieldsPath(kContacts, "score"), bearer(token_)));
    CPPUNIT_ASSERT_MESSAGE(
        "score still described",
        !contains(propertyNames(customFieldsSchemaOf(document(bearer(token_)), "Contact")),
                  "score"));
  }

  void testWithoutTokenTheGenericDocument() {
    defineSome();
    const Json doc = document();
    for (const char* name : {"Contact", "Deal", "CrmCompany", "Activity"}) {
      assertFreeObject(customFieldsSchemaOf(doc, name), std::string(name) + " without a token");
    }
    CPPUNIT_ASSERT(doc.dump().find("contract_id") == std::string::npos);
  }

  void testAnotherCompanySeesItsOwn() {
    defineSome();
    const Account other = registerUser(*client_, "cf-openapi-other");
    defineField(*client_, other.token, kContacts, fieldBody("theirs", "text"));
    const Json doc = document(bearer(other.token));
    CPPUNIT_ASSERT(propertyNames(customFieldsSchemaOf(doc, "Contact")) ==
                   (std::vector<std::string>{"theirs"}));
    CPPUNIT_ASSERT(doc.dump().find("contract_id") == std::string::npos);
    const Account bare = registerUser(*client_, "cf-openapi-bare");
    const Json none = customFieldsSchemaOf(document(bearer(bare.token)), "Contact");
    CPPUNIT_ASSERT_MESSAGE(none.dump(), propertyNames(none).empty());
  }

#ifdef RAPPORT_OPENAPI_VALIDATOR_DIR
  // node validate_document.mjs <the company's document> <work dir>: exit 0.
  void testCompanyDocumentPassesTheValidator() {
    defineSome();
    const std::string dir = rapport::test::tempDirectory("cf-openapi");
    const std::string file = dir + "/company-openapi.json";
    std::ofstream(file) << document(bearer(token_)).dump();
    const std::string command = std::string(RAPPORT_NODE) +
                                " " RAPPORT_OPENAPI_VALIDATOR_DIR "/validate_document.mjs " + file +
                                " " + dir + "/lint 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    CPPUNIT_ASSERT_MESSAGE(command, pipe != nullptr);
    std::string output;
    std::array<char, 4096> buffer{};
    while (std::fgets(buffer.data(), buffer.size(), pipe)) output += buffer.data();
    const int status = pclose(pipe);
    CPPUNIT_ASSERT_MESSAGE(command + "\n" + output, WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CPPUNIT_ASSERT_MESSAGE(output, output.find(" 0 failed") != std::string::npos);
  }
#endif
};

CPPUNIT_TEST_SUITE_REGISTRATION(CfOpenApiTest);
