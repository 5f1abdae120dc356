// Definitions (decisions §14): create, list in creation order, get, patch and
// delete under /v1/crm/<resource>/fields with the answers' exact shape and
// messages; every 422 of the contract on its member; 409 on a duplicate key;
// members read but do not write; another company's key is 404; at most 100
// fields per record type.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/custom_fields/CustomFieldsSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::custom_fields;
using rapport::e2e::query::keysOf;

namespace {

const std::vector<std::string> kDefinitionMembers = {
    "created_at",  "default",  "description", "key",  "label",  "options",
    "record_type", "required", "target",      "type", "unique", "updated_at"};

}  // namespace

class CfDefinitionsTest : public CustomFieldsFixture {
  CPPUNIT_TEST_SUITE(CfDefinitionsTest);
  CPPUNIT_TEST(testCreateAnswersTheDefinition);
  CPPUNIT_TEST(testCreateWithEveryMember);
  CPPUNIT_TEST(testListGetPatchDelete);
  CPPUNIT_TEST(testEveryRecordTypeHasFields);
  CPPUNIT_TEST(testKeyIs422);
  CPPUNIT_TEST(testLabelTypeAndDescriptionAre422);
  CPPUNIT_TEST(testOptionsAre422);
  CPPUNIT_TEST(testUniqueTargetAndDefaultAre422);
  CPPUNIT_TEST(testPatchOfTypeOrKeyIs422);
  CPPUNIT_TEST(testAtMost100FieldsPerRecordType);
  CPPUNIT_TEST(testDuplicateKeyIs409);
  CPPUNIT_TEST(testMembersReadButDoNotWrite);
  CPPUNIT_TEST(testAnotherCompanysKeyIs404);
  CPPUNIT_TEST_SUITE_END();

 public:
  // POST <records>/fields with `body`: the raw answer.
  HttpResult postField(const Json& body, const std::string& records = kContacts) {
    return client_->post(fieldsPath(records), body, bearer(token_));
  }
  HttpResult patchField(const std::string& key, const Json& body,
                        const std::string& records = kContacts) {
    return client_->patch(fieldsPath(records, key), body, bearer(token_));
  }
  // POST `body` answers 422 naming exactly `member`.
  void refusedOn(const std::string& member, const Json& body) {
    withRequest("POST " + fieldsPath(kContacts) + " " + body.dump().substr(0, 400),
                [&] { CF_ASSERT_ERROR_KEY(postField(body), member); });
  }

  void testCreateAnswersTheDefinition() {
    const HttpResult result = postField(fieldBody("lead_source", "text"));
    const Json field = E2E_ASSERT_DATA(201, result);
    E2E_ASSERT_COMMON_HEADERS(result);
    CPPUNIT_ASSERT_EQUAL(std::string("Custom field created."), result.json()["message"].asString());
    CPPUNIT_ASSERT_MESSAGE(field.dump(), keysOf(field) == kDefinitionMembers);
    CPPUNIT_ASSERT_EQUAL(std::string("lead_source"), field["key"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Label of lead_source"), field["label"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("text"), field["type"].asString());
    CPPUNIT_ASSERT_MESSAGE(field.dump(), field["description"].isNull());
    CPPUNIT_ASSERT_EQUAL(std::string("false"), field["required"].dump());
    CPPUNIT_ASSERT_EQUAL(std::string("false"), field["unique"].dump());
    CPPUNIT_ASSERT_EQUAL(std::string("[]"), field["options"].dump());
    CPPUNIT_ASSERT_MESSAGE(field.dump(), field["default"].isNull());
    CPPUNIT_ASSERT_MESSAGE(field.dump(), field["target"].isNull());
    CPPUNIT_ASSERT_EQUAL(std::string("contact"), field["record_type"].asString());
    const std::int64_t created = E2E_ASSERT_ISO_UTC(field["created_at"]);
    CPPUNIT_ASSERT(created >= unixNow() - 300 && created <= unixNow() + 5);
    E2E_ASSERT_ISO_UTC(field["updated_at"]);
  }

  void testCreateWithEveryMember() {
    const Json options = optionsOf({"web", "referral"});
    const Json select = define(fieldBody("source", "select",
                                         Json::object({{"description", "Where the lead came from"},
                                                       {"required", true},
                                                       {"options", options},
                                                       {"default", "web"}})));
    CPPUNIT_ASSERT_EQUAL(std::string("Where the lead came from"), select["description"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("true"), select["required"].dump());
    CPPUNIT_ASSERT_EQUAL(options.dump(), select["options"].dump());
    CPPUNIT_ASSERT_EQUAL(std::string("web"), select["default"].asString());
    const Json unique = define(fieldBody("external_id", "text", Json::object({{"unique", true}})));
    CPPUNIT_ASSERT_EQUAL(std::string("true"), unique["unique"].dump());
    const Json reference =
        define(fieldBody("referrer", "reference", Json::object({{"target", "contact"}})));
    CPPUNIT_ASSERT_EQUAL(std::string("contact"), reference["target"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("[]"), reference["options"].dump());
    // Each of the five types that may be unique.
    for (const char* type : {"email", "number", "url", "phone"}) {
      const Json made =
          define(fieldBody(std::string("unique_") + type, type, Json::object({{"unique", true}})));
      CPPUNIT_ASSERT_EQUAL_MESSAGE(made.dump(), std::string("true"), made["unique"].dump());
    }
    // Every one of the 15 types is accepted.
    for (const char* type :
         {"long_text", "decimal", "money", "boolean", "date", "datetime", "user"}) {
      define(fieldBody(std::string("plain_") + type, type));
    }
    define(fieldBody("plain_multi", "multi_select", Json::object({{"options", options}})));
  }

  void testListGetPatchDelete() {
    const Json first = define(fieldBody("zeta", "text"));
    const Json second = define(fieldBody("alpha", "number"));
    const Json third = define(fieldBody("mid", "boolean"));
    const Json list = fields();
    CPPUNIT_ASSERT_EQUAL(first.dump(), list.asArray().at(0).dump());
    CPPUNIT_ASSERT_MESSAGE(
        list.dump(), pluck(list, "key") == (std::vector<std::string>{"zeta", "alpha", "mid"}));
    CPPUNIT_ASSERT_EQUAL(second.dump(), list.asArray()[1].dump());

    const Json got =
        E2E_ASSERT_DATA(200, client_->get(fieldsPath(kContacts, "alpha"), bearer(token_)));
    CPPUNIT_ASSERT_EQUAL(second.dump(), got.dump());

    const HttpResult patched =
        patchField("alpha", Json::object({{"label", "Renamed"}, {"description", "Now described"}}));
    const Json updated = E2E_ASSERT_DATA(200, patched);
    CPPUNIT_ASSERT_EQUAL(std::string("Custom field updated."),
                         patched.json()["message"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Renamed"), updated["label"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Now described"), updated["description"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("number"), updated["type"].asString());
    CPPUNIT_ASSERT_EQUAL(second["created_at"].dump(), updated["created_at"].dump());
    CPPUNIT_ASSERT(E2E_ASSERT_ISO_UTC(updated["updated_at"]) >=
                   E2E_ASSERT_ISO_UTC(second["updated_at"]));
    CPPUNIT_ASSERT_MESSAGE(updated.dump(), keysOf(updated) == kDefinitionMembers);
    // An empty PATCH changes nothing and still answers the definition.
    CPPUNIT_ASSERT_EQUAL(
        std::string("Renamed"),
        E2E_ASSERT_DATA(200, patchField("alpha", Json::object()))["label"].asString());
    // description: null clears it.
    CPPUNIT_ASSERT(
        E2E_ASSERT_DATA(200,
                        patchField("alpha", Json::object({{"description", Json()}})))["description"]
            .isNull());

    const HttpResult deleted = client_->del(fieldsPath(kContacts, "zeta"), bearer(token_));
    const Json gone = E2E_ASSERT_DATA(200, deleted);
    CPPUNIT_ASSERT_EQUAL(std::string("Custom field deleted."),
                         deleted.json()["message"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"key":"zeta"})"), gone.dump());
    CRM_ASSERT_ERROR_MESSAGE(404, "Custom field not found.",
                             client_->get(fieldsPath(kContacts, "zeta"), bearer(token_)));
    CRM_ASSERT_ERROR_MESSAGE(404, "Custom field not found.",
                             client_->del(fieldsPath(kContacts, "zeta"), bearer(token_)));
    CRM_ASSERT_ERROR_MESSAGE(404, "Custom field not found.",
                             patchField("zeta", Json::object({{"label", "Again"}})));
    CRM_ASSERT_ERROR_MESSAGE(404, "Custom field not found.",
                             client_->get(fieldsPath(kContacts, "never"), bearer(token_)));
    const Json after = fields();
    CPPUNIT_ASSERT(pluck(after, "key") == (std::vector<std::string>{"alpha", "mid"}));
    CPPUNIT_ASSERT_EQUAL(third.dump(), after.asArray()[1].dump());
  }

  // record_type is the singular of each resource; each list holds only its own.
  void testEveryRecordTypeHasFields() {
    const std::vector<std::pair<std::string, std::string>> types = {{kContacts, "contact"},
                                                                    {kCompanies, "company"},
                                                                    {kDeals, "deal"},
                                                                    {kActivities, "activity"}};
    for (const auto& [records, recordType] : types) {
      const Json made = define(fieldBody("shared_key", "text"), records);
      CPPUNIT_ASSERT_EQUAL_MESSAGE(made.dump(), recordType, made["record_type"].asString());
      define(fieldBody("only_" + recordType, "number"), records);
    }
    for (const auto& [records, recordType] : types) {
      const Json list = fields(records);
      CPPUNIT_ASSERT_MESSAGE(
          list.dump(),
          pluck(list, "key") == (std::vector<std::string>{"shared_key", "only_" + recordType}));
      for (const Json& field : list.asArray()) {
        CPPUNIT_ASSERT_EQUAL(recordType, field["record_type"].asString());
      }
    }
  }

  void testKeyIs422() {
    for (const std::string& key :
         {std::string("Bad"), std::string("1abc"), std::string(""), std::string("_lead"),
          std::string("lead-source"), std::string("lead source"), std::string("é"),
          "a" + std::string(63, 'b')}) {
      refusedOn("key", fieldBody(key, "text"));
    }
    // Built-in fields of contacts, and the record's own members.
    for (const char* key : {"email", "name", "phone", "tags", "company_id", "id", "created_at"}) {
      refusedOn("key", fieldBody(key, "text"));
    }
    Json missing = fieldBody("x", "text");
    missing.erase("key");
    refusedOn("key", missing);
    refusedOn("key", fieldBody("x", "text", Json::object({{"key", 5}})));
    // The longest key is 63 characters; a built-in name of contacts is free
    // on another record type (deals have no email).
    define(fieldBody("a" + std::string(62, 'b'), "text"));
    define(fieldBody("email", "email"), kDeals);
  }

  void testLabelTypeAndDescriptionAre422() {
    refusedOn("label", fieldBody("x", "text", Json::object({{"label", ""}})));
    refusedOn("label", fieldBody("x", "text", Json::object({{"label", std::string(101, 'l')}})));
    Json noLabel = fieldBody("x", "text");
    noLabel.erase("label");
    refusedOn("label", noLabel);
    refusedOn("type", fieldBody("x", "colour"));
    refusedOn("type", fieldBody("x", "TEXT"));
    Json noType = fieldBody("x", "text");
    noType.erase("type");
    refusedOn("type", noType);
    refusedOn("description",
              fieldBody("x", "text", Json::object({{"description", std::string(501, 'd')}})));
    define(fieldBody(
        "x", "text",
        Json::object({{"label", std::string(100, 'l')}, {"description", std::string(500, 'd')}})));
  }

  void testOptionsAre422() {
    Json noOptions = fieldBody("s", "select");
    refusedOn("options", noOptions);
    refusedOn("options", fieldBody("s", "select", Json::object({{"options", Json::array()}})));
    refusedOn("options",
              fieldBody("m", "multi_select", Json::object({{"options", Json::array()}})));
    refusedOn("options", fieldBody("t", "text", Json::object({{"options", optionsOf({"a"})}})));
    refusedOn("options",
              fieldBody("s", "select", Json::object({{"options", optionsOf({"a", "a"})}})));
    std::vector<std::string> many;
    for (int i = 0; i < 201; ++i) many.push_back("o" + std::to_string(i));
    refusedOn("options", fieldBody("s", "select", Json::object({{"options", optionsOf(many)}})));
    many.pop_back();
    define(fieldBody("two_hundred", "select", Json::object({{"options", optionsOf(many)}})));
    // A value or label empty or over 100 characters: errors under options.
    const auto option = [](const std::string& value, const std::string& label) {
      return Json::object(
          {{"options", Json::Array{Json::object({{"value", value}, {"label", label}})}}});
    };
    for (const Json& extra : {option("", "Empty"), option(std::string(101, 'v'), "Long"),
                              option("v", std::string(101, 'l')), option("v", "")}) {
      const Json body = fieldBody("s", "select", extra);
      withRequest("POST " + fieldsPath(kContacts) + " " + body.dump(),
                  [&] { CF_ASSERT_ERROR_UNDER(postField(body), "options"); });
    }
    define(fieldBody("longest", "select", option(std::string(100, 'v'), std::string(100, 'l'))));
  }

  void testUniqueTargetAndDefaultAre422() {
    for (const char* type :
         {"boolean", "long_text", "decimal", "money", "date", "datetime", "user"}) {
      refusedOn("unique", fieldBody("u", type, Json::object({{"unique", true}})));
    }
    refusedOn("unique", fieldBody("u", "select",
                                  Json::object({{"unique", true}, {"options", optionsOf({"a"})}})));
    refusedOn("unique",
              fieldBody("u", "reference", Json::object({{"unique", true}, {"target", "contact"}})));
    refusedOn("target", fieldBody("r", "reference"));
    refusedOn("target", fieldBody("r", "reference", Json::object({{"target", "planet"}})));
    refusedOn("target", fieldBody("r", "reference", Json::object({{"target", "contacts"}})));
    refusedOn("target", fieldBody("r", "text", Json::object({{"target", "contact"}})));
    refusedOn("default", fieldBody("d", "number", Json::object({{"default", "x"}})));
    refusedOn("default", fieldBody("d", "number", Json::object({{"default", 1.5}})));
    refusedOn("default", fieldBody("d", "boolean", Json::object({{"default", "yes"}})));
    refusedOn("default", fieldBody("d", "date", Json::object({{"default", "2026-02-30"}})));
    refusedOn("default", fieldBody("d", "email", Json::object({{"default", "nobody"}})));
    refusedOn(
        "default",
        fieldBody("d", "select", Json::object({{"options", optionsOf({"a"})}, {"default", "b"}})));
    refusedOn("default",
              fieldBody("d", "multi_select",
                        Json::object({{"options", optionsOf({"a"})}, {"default", "a"}})));
    refusedOn("default",
              fieldBody("d", "text", Json::object({{"default", std::string(256, 't')}})));
    // None of them was created.
    const Json list = fields();
    CPPUNIT_ASSERT_EQUAL_MESSAGE(list.dump(), std::size_t(0), list.size());
    // A decimal default with 7 decimals is no decimal value either.
    refusedOn("default", fieldBody("d", "decimal", Json::object({{"default", 1.1234567}})));
  }

  void testPatchOfTypeOrKeyIs422() {
    define(fieldBody("score", "number"));
    CF_ASSERT_ERROR_KEY(patchField("score", Json::object({{"type", "text"}})), "type");
    CF_ASSERT_ERROR_KEY(patchField("score", Json::object({{"key", "points"}})), "key");
    CF_ASSERT_ERROR_KEY(patchField("score", Json::object({{"label", ""}})), "label");
    CF_ASSERT_ERROR_KEY(patchField("score", Json::object({{"default", "many"}})), "default");
    CF_ASSERT_ERROR_KEY(patchField("score", Json::object({{"options", optionsOf({"a"})}})),
                        "options");
    CF_ASSERT_ERROR_KEY(patchField("score", Json::object({{"target", "contact"}})), "target");
    // Sending the same type or key is no change, and so no error.
    E2E_ASSERT_DATA(200, patchField("score", Json::object({{"type", "number"}, {"key", "score"}})));
    const Json kept =
        E2E_ASSERT_DATA(200, client_->get(fieldsPath(kContacts, "score"), bearer(token_)));
    CPPUNIT_ASSERT_EQUAL(std::string("number"), kept["type"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Label of score"), kept["label"].asString());
    CPPUNIT_ASSERT(kept["default"].isNull());
  }

  // The 101st field of a record type is refused on key; other record types
  // keep their own 100.
  void testAtMost100FieldsPerRecordType() {
    for (int i = 0; i < 100; ++i) {
      const HttpResult made = postField(fieldBody("f" + std::to_string(i), "text"));
      if (made.status != 201) E2E_ASSERT_DATA(201, made);
    }
    CRM_ASSERT_FIELD_ERROR(postField(fieldBody("f100", "text")), "key",
                           "A record type may have at most 100 custom fields.");
    define(fieldBody("f100", "text"), kCompanies);
    // A deleted field frees its place.
    E2E_ASSERT_DATA(200, client_->del(fieldsPath(kContacts, "f7"), bearer(token_)));
    define(fieldBody("f100", "text"));
    const Json list = fields();
    CPPUNIT_ASSERT_EQUAL(std::size_t(100), list.size());
    // A record carries all 100 keys.
    const Json contact = create(Json::object({{"name", "Wide"}}));
    CPPUNIT_ASSERT_EQUAL(std::size_t(100), contact["custom_fields"].size());
  }

  void testDuplicateKeyIs409() {
    define(fieldBody("lead_source", "text"));
    CRM_ASSERT_ERROR_MESSAGE(409, "A custom field with this key already exists.",
                             postField(fieldBody("lead_source", "number")));
    // Another record type, or another company, may use the key.
    define(fieldBody("lead_source", "number"), kDeals);
    const Account other = registerUser(*client_, "cf-duplicate-other");
    defineField(*client_, other.token, kContacts, fieldBody("lead_source", "boolean"));
    // A deleted key may be defined again.
    E2E_ASSERT_DATA(200, client_->del(fieldsPath(kContacts, "lead_source"), bearer(token_)));
    const Json again = define(fieldBody("lead_source", "date"));
    CPPUNIT_ASSERT_EQUAL(std::string("date"), again["type"].asString());
  }

  void testMembersReadButDoNotWrite() {
    define(fieldBody("lead_source", "text"));
    const Account member = crm::addMember(*client_, owner_, "member", "cf-member");
    const Headers asMember = bearer(member.token);
    const Json list = listFields(*client_, member.token, kContacts);
    CPPUNIT_ASSERT(pluck(list, "key") == (std::vector<std::string>{"lead_source"}));
    E2E_ASSERT_DATA(200, client_->get(fieldsPath(kContacts, "lead_source"), asMember));
    E2E_ASSERT_ERROR(403,
                     client_->post(fieldsPath(kContacts), fieldBody("mine", "text"), asMember));
    E2E_ASSERT_ERROR(403, client_->patch(fieldsPath(kContacts, "lead_source"),
                                         Json::object({{"label", "Mine"}}), asMember));
    E2E_ASSERT_ERROR(403, client_->del(fieldsPath(kContacts, "lead_source"), asMember));
    // A member still writes values.
    const Json contact = E2E_ASSERT_DATA(
        201,
        client_->post(kContacts, contactWith("By member", Json::object({{"lead_source", "m"}})),
                      asMember));
    CF_ASSERT_CUSTOM_FIELDS(R"({"lead_source":"m"})", contact);
    // An admin writes definitions.
    const Account admin = crm::addMember(*client_, owner_, "admin", "cf-admin");
    defineField(*client_, admin.token, kContacts, fieldBody("by_admin", "text"));
    E2E_ASSERT_DATA(200, client_->patch(fieldsPath(kContacts, "by_admin"),
                                        Json::object({{"label", "Admin's"}}), bearer(admin.token)));
    E2E_ASSERT_DATA(200, client_->del(fieldsPath(kContacts, "by_admin"), bearer(admin.token)));
    // Without a token: 401.
    E2E_ASSERT_ERROR(401, client_->get(fieldsPath(kContacts)));
  }

  void testAnotherCompanysKeyIs404() {
    define(fieldBody("secret_key", "text"));
    const Account other = registerUser(*client_, "cf-404-other");
    const Headers asOther = bearer(other.token);
    CRM_ASSERT_ERROR_MESSAGE(404, "Custom field not found.",
                             client_->get(fieldsPath(kContacts, "secret_key"), asOther));
    CRM_ASSERT_ERROR_MESSAGE(404, "Custom field not found.",
                             client_->patch(fieldsPath(kContacts, "secret_key"),
                                            Json::object({{"label", "Stolen"}}), asOther));
    CRM_ASSERT_ERROR_MESSAGE(404, "Custom field not found.",
                             client_->del(fieldsPath(kContacts, "secret_key"), asOther));
    const Json kept =
        E2E_ASSERT_DATA(200, client_->get(fieldsPath(kContacts, "secret_key"), bearer(token_)));
    CPPUNIT_ASSERT_EQUAL(std::string("Label of secret_key"), kept["label"].asString());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(CfDefinitionsTest);
