// Values on records (decisions §14): every record carries every live key
// (null when unset), a create takes each unsent key's default, a required key
// is refused when missing on create or set to null on PATCH, a PATCH changes
// only the keys it sends, and an unknown key or a custom_fields that is not an
// object is a 422.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/custom_fields/CustomFieldsSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::custom_fields;
using rapport::e2e::query::keysOf;

class CfValuesTest : public CustomFieldsFixture {
  CPPUNIT_TEST_SUITE(CfValuesTest);
  CPPUNIT_TEST(testEveryKeyIsPresent);
  CPPUNIT_TEST(testDefaultsOnCreate);
  CPPUNIT_TEST(testRequiredMissingOnCreate);
  CPPUNIT_TEST(testRequiredSetToNullOnPatch);
  CPPUNIT_TEST(testPatchChangesOnlySentKeys);
  CPPUNIT_TEST(testUnknownKeyIs422);
  CPPUNIT_TEST(testCustomFieldsNotAnObjectIs422);
  CPPUNIT_TEST(testOtherRecordTypesCarryTheirOwnFields);
  CPPUNIT_TEST_SUITE_END();

 public:
  // Without definitions custom_fields is {}; a record created before a field
  // shows its key null, in GET and in the list, as every later record does.
  void testEveryKeyIsPresent() {
    const Json before = create(Json::object({{"name", "Before"}}));
    CF_ASSERT_CUSTOM_FIELDS("{}", before);
    define(fieldBody("lead_source", "text"));
    define(fieldBody("score", "number"));
    const Json got = read(before["id"].asString());
    CF_ASSERT_CUSTOM_FIELDS(R"({"lead_source":null,"score":null})", got);
    const Json after = create(Json::object({{"name", "After"}}));
    CF_ASSERT_CUSTOM_FIELDS(R"({"lead_source":null,"score":null})", after);
    for (const Json& record : allRecords(*client_, token_, kContacts)) {
      CPPUNIT_ASSERT_MESSAGE(record.dump(), keysOf(record["custom_fields"]) ==
                                                (std::vector<std::string>{"lead_source", "score"}));
    }
  }

  // An unsent key takes its default (or null); a sent value, or a sent null,
  // wins over it; a PATCH never applies defaults.
  void testDefaultsOnCreate() {
    define(fieldBody("tier", "text", Json::object({{"default", "standard"}})));
    define(fieldBody("seats", "number", Json::object({{"default", 5}})));
    define(
        fieldBody("source", "select",
                  Json::object({{"options", optionsOf({"web", "referral"})}, {"default", "web"}})));
    define(fieldBody("vip", "boolean", Json::object({{"default", false}})));
    define(fieldBody(
        "tags_of_mine", "multi_select",
        Json::object({{"options", optionsOf({"a", "b"})}, {"default", Json::Array{"b", "a"}}})));
    define(fieldBody("plain", "text"));
    const Json defaulted = create(Json::object({{"name", "Defaults"}}));
    const std::string expected =
        R"({"tier":"standard","seats":5,"source":"web","vip":false,"tags_of_mine":["b","a"],"plain":null})";
    CF_ASSERT_CUSTOM_FIELDS(expected, defaulted);
    CF_ASSERT_CUSTOM_FIELDS(expected, read(defaulted["id"].asString()));

    const Json sent = create(contactWith(
        "Sent", Json::object({{"tier", "gold"}, {"seats", Json()}, {"plain", "here"}})));
    CF_ASSERT_CUSTOM_FIELDS(
        R"({"tier":"gold","seats":null,"source":"web","vip":false,"tags_of_mine":["b","a"],"plain":"here"})",
        sent);

    // A record created before the field keeps null: a default is for creates.
    define(fieldBody("late", "text", Json::object({{"default", "x"}})));
    const Json old = read(defaulted["id"].asString());
    CPPUNIT_ASSERT_MESSAGE(old.dump(), old["custom_fields"]["late"].isNull());
    const Json patched = E2E_ASSERT_DATA(
        200, patch(defaulted["id"].asString(), Json::object({{"name", "Renamed"}})));
    CPPUNIT_ASSERT_MESSAGE(patched.dump(), patched["custom_fields"]["late"].isNull());
  }

  void testRequiredMissingOnCreate() {
    define(fieldBody("contract_id", "text", Json::object({{"required", true}})));
    CF_ASSERT_CUSTOM_ERROR(post(Json::object({{"name", "Missing"}})), "contract_id");
    CF_ASSERT_CUSTOM_ERROR(post(contactWith("Null", Json::object({{"contract_id", Json()}}))),
                           "contract_id");
    CF_ASSERT_CUSTOM_ERROR(post(contactWith("Other key only", Json::object())), "contract_id");
    const Json made = create(contactWith("Given", Json::object({{"contract_id", "C-1"}})));
    CPPUNIT_ASSERT_EQUAL(std::string("C-1"), made["custom_fields"]["contract_id"].asString());
    // A required field with a default is satisfied by its default.
    define(fieldBody("region", "text", Json::object({{"required", true}, {"default", "EU"}})));
    const Json defaulted = create(contactWith("Default", Json::object({{"contract_id", "C-2"}})));
    CPPUNIT_ASSERT_EQUAL(std::string("EU"), defaulted["custom_fields"]["region"].asString());
    // Nothing was created by the refused requests.
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), allRecords(*client_, token_, kContacts).size());
  }

  void testRequiredSetToNullOnPatch() {
    define(fieldBody("contract_id", "text", Json::object({{"required", true}})));
    const std::string id =
        create(contactWith("Given", Json::object({{"contract_id", "C-1"}})))["id"].asString();
    CF_ASSERT_CUSTOM_ERROR(
        patch(id, Json::object({{"custom_fields", Json::object({{"contract_id", Json()}})}})),
        "contract_id");
    CPPUNIT_ASSERT_EQUAL(std::string("C-1"), read(id)["custom_fields"]["contract_id"].asString());
    // A PATCH that does not send the key leaves it, and so passes.
    const Json renamed = E2E_ASSERT_DATA(200, patch(id, Json::object({{"name", "Renamed"}})));
    CPPUNIT_ASSERT_EQUAL(std::string("C-1"), renamed["custom_fields"]["contract_id"].asString());
    const Json changed = E2E_ASSERT_DATA(
        200, patch(id, Json::object({{"custom_fields", Json::object({{"contract_id", "C-9"}})}})));
    CPPUNIT_ASSERT_EQUAL(std::string("C-9"), changed["custom_fields"]["contract_id"].asString());
  }

  void testPatchChangesOnlySentKeys() {
    define(fieldBody("a", "number"));
    define(fieldBody("b", "text"));
    define(fieldBody("c", "boolean"));
    const std::string id =
        create(contactWith("Three", Json::object({{"a", 1}, {"b", "two"}, {"c", true}})))["id"]
            .asString();
    const auto changed = [&](const Json& values) {
      return E2E_ASSERT_DATA(200, patch(id, Json::object({{"custom_fields", values}})));
    };
    CF_ASSERT_CUSTOM_FIELDS(R"({"a":1,"b":"twenty","c":true})",
                            changed(Json::object({{"b", "twenty"}})));
    CF_ASSERT_CUSTOM_FIELDS(R"({"a":1,"b":"twenty","c":null})",
                            changed(Json::object({{"c", Json()}})));
    CF_ASSERT_CUSTOM_FIELDS(R"({"a":1,"b":"twenty","c":null})",
                            E2E_ASSERT_DATA(200, patch(id, Json::object({{"job_title", "CTO"}}))));
    CF_ASSERT_CUSTOM_FIELDS(R"({"a":1,"b":"twenty","c":null})", changed(Json::object()));
    CF_ASSERT_CUSTOM_FIELDS(R"({"a":1,"b":"twenty","c":null})", read(id));
    // A refused PATCH (one bad key beside a good one) changes nothing.
    CF_ASSERT_CUSTOM_ERROR(
        patch(id, Json::object({{"custom_fields", Json::object({{"a", 2}, {"c", "yes"}})}})), "c");
    CF_ASSERT_CUSTOM_FIELDS(R"({"a":1,"b":"twenty","c":null})", read(id));
  }

  void testUnknownKeyIs422() {
    define(fieldBody("known", "text"));
    CF_ASSERT_CUSTOM_ERROR(post(contactWith("Unknown", Json::object({{"nope", 1}}))), "nope");
    CF_ASSERT_CUSTOM_ERROR(
        post(contactWith("Unknown beside known", Json::object({{"known", "k"}, {"nope", "x"}}))),
        "nope");
    const std::string id = create(Json::object({{"name", "Known"}}))["id"].asString();
    CF_ASSERT_CUSTOM_ERROR(
        patch(id, Json::object({{"custom_fields", Json::object({{"Known", "case"}})}})), "Known");
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), allRecords(*client_, token_, kContacts).size());
  }

  void testCustomFieldsNotAnObjectIs422() {
    define(fieldBody("known", "text"));
    for (const Json& value : {Json("known"), Json(Json::Array{"known"}), Json(1)}) {
      CRM_ASSERT_FIELD_ERROR(post(contactWith("Bad", value)), "custom_fields", "");
    }
    const std::string id = create(Json::object({{"name", "Known"}}))["id"].asString();
    CRM_ASSERT_FIELD_ERROR(patch(id, Json::object({{"custom_fields", "x"}})), "custom_fields", "");
  }

  // CRM companies, deals and activities take custom fields of their own:
  // a key of contacts is unknown on them.
  void testOtherRecordTypesCarryTheirOwnFields() {
    define(fieldBody("region", "text"));
    define(fieldBody("employees", "number"), kCompanies);
    define(fieldBody("channel", "select",
                     Json::object({{"options", optionsOf({"direct", "partner"})}})),
           kDeals);
    define(fieldBody("outcome", "text"), kActivities);

    const Json company =
        create(withCustom(Json::object({{"name", "Acme"}}), Json::object({{"employees", 50}})),
               kCompanies);
    CF_ASSERT_CUSTOM_FIELDS(R"({"employees":50})", company);
    CF_ASSERT_CUSTOM_ERROR(
        post(withCustom(Json::object({{"name", "Acme 2"}}), Json::object({{"region", "EU"}})),
             kCompanies),
        "region");

    Json deal = crm::createDeal(*client_, token_, std::string("Channel deal"));
    deal = E2E_ASSERT_DATA(
        200,
        patch(deal["id"].asString(),
              Json::object({{"custom_fields", Json::object({{"channel", "partner"}})}}), kDeals));
    CF_ASSERT_CUSTOM_FIELDS(R"({"channel":"partner"})", deal);
    CF_ASSERT_CUSTOM_ERROR(
        patch(deal["id"].asString(),
              Json::object({{"custom_fields", Json::object({{"channel", "retail"}})}}), kDeals),
        "channel");

    const Json activity = create(withCustom(Json::object({{"type", "call"}, {"title", "Call"}}),
                                            Json::object({{"outcome", "agreed"}})),
                                 kActivities);
    CF_ASSERT_CUSTOM_FIELDS(R"({"outcome":"agreed"})", activity);
    CF_ASSERT_CUSTOM_FIELDS(R"({"outcome":"agreed"})",
                            read(activity["id"].asString(), kActivities));

    const Json contact = create(contactWith("Regional", Json::object({{"region", "EU"}})));
    CF_ASSERT_CUSTOM_FIELDS(R"({"region":"EU"})", contact);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(CfValuesTest);
