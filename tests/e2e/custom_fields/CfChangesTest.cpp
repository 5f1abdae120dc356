// Definition changes against existing values (decisions §14): removing an
// option a record uses is a 409 (an unused one goes); unique: true over
// colliding values is a 409, over distinct ones a 200 after which a duplicate
// is a 409 on create and on PATCH; required: true while records lack the
// value is a 200 that applies to later writes only. A definition changed
// outside the API (another instance, a script) reaches the next write too.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/custom_fields/CustomFieldsSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::custom_fields;

class CfChangesTest : public CustomFieldsFixture {
  CPPUNIT_TEST_SUITE(CfChangesTest);
  CPPUNIT_TEST(testRemovingAnOptionInUseIs409);
  CPPUNIT_TEST(testRemovingAMultiSelectOptionInUseIs409);
  CPPUNIT_TEST(testUniqueOverCollidingValuesIs409);
  CPPUNIT_TEST(testUniqueThenDuplicatesAre409);
  CPPUNIT_TEST(testRequiredLaterAppliesToLaterWrites);
  CPPUNIT_TEST(testDefaultAndLabelChanges);
  CPPUNIT_TEST(testAChangeOutsideTheApiReachesTheNextWrite);
  CPPUNIT_TEST_SUITE_END();

 public:
  HttpResult patchField(const std::string& key, const Json& body) {
    return client_->patch(fieldsPath(kContacts, key), body, bearer(token_));
  }
  Json definition(const std::string& key) {
    return E2E_ASSERT_DATA(200, client_->get(fieldsPath(kContacts, key), bearer(token_)));
  }

  void testRemovingAnOptionInUseIs409() {
    define(fieldBody("stage", "select", Json::object({{"options", optionsOf({"a", "b", "c"})}})));
    const std::string id =
        create(contactWith("Uses a", Json::object({{"stage", "a"}})))["id"].asString();
    create(Json::object({{"name", "Uses none"}}));
    E2E_ASSERT_ERROR(409, patchField("stage", Json::object({{"options", optionsOf({"b", "c"})}})));
    CPPUNIT_ASSERT_EQUAL(optionsOf({"a", "b", "c"}).dump(), definition("stage")["options"].dump());
    // c is unused: it goes; d is added; a is relabelled.
    Json options = optionsOf({"a", "b", "d"});
    options.asArray()[0].set("label", "Alpha");
    const Json changed =
        E2E_ASSERT_DATA(200, patchField("stage", Json::object({{"options", options}})));
    CPPUNIT_ASSERT_EQUAL(options.dump(), changed["options"].dump());
    CPPUNIT_ASSERT_EQUAL(options.dump(), definition("stage")["options"].dump());
    CF_ASSERT_CUSTOM_ERROR(post(contactWith("Uses c", Json::object({{"stage", "c"}}))), "stage");
    create(contactWith("Uses d", Json::object({{"stage", "d"}})));
    // Once no record uses a, it may go.
    E2E_ASSERT_DATA(200,
                    patch(id, Json::object({{"custom_fields", Json::object({{"stage", "b"}})}})));
    E2E_ASSERT_DATA(200, patchField("stage", Json::object({{"options", optionsOf({"b", "d"})}})));
    // A deleted record's value holds nothing back.
    E2E_ASSERT_DATA(200, client_->del(kContacts + "/" + id, bearer(token_)));
    E2E_ASSERT_DATA(200, patchField("stage", Json::object({{"options", optionsOf({"d"})}})));
  }

  void testRemovingAMultiSelectOptionInUseIs409() {
    define(fieldBody("segments", "multi_select",
                     Json::object({{"options", optionsOf({"x", "y", "z"})}})));
    create(contactWith("Uses x y", Json::object({{"segments", Json::Array{"x", "y"}}})));
    E2E_ASSERT_ERROR(409,
                     patchField("segments", Json::object({{"options", optionsOf({"x", "z"})}})));
    E2E_ASSERT_ERROR(409, patchField("segments", Json::object({{"options", optionsOf({"y"})}})));
    const Json changed = E2E_ASSERT_DATA(
        200, patchField("segments", Json::object({{"options", optionsOf({"x", "y"})}})));
    CPPUNIT_ASSERT_EQUAL(optionsOf({"x", "y"}).dump(), changed["options"].dump());
  }

  void testUniqueOverCollidingValuesIs409() {
    define(fieldBody("external_id", "text"));
    create(contactWith("One", Json::object({{"external_id", "same"}})));
    create(contactWith("Two", Json::object({{"external_id", "same"}})));
    create(Json::object({{"name", "Unset"}}));
    create(Json::object({{"name", "Unset too"}}));  // two nulls never collide
    E2E_ASSERT_ERROR(409, patchField("external_id", Json::object({{"unique", true}})));
    CPPUNIT_ASSERT_EQUAL(std::string("false"), definition("external_id")["unique"].dump());
    // Still not unique: a third "same" is allowed.
    create(contactWith("Three", Json::object({{"external_id", "same"}})));
  }

  void testUniqueThenDuplicatesAre409() {
    define(fieldBody("external_id", "text"));
    define(fieldBody("seat", "number"));
    create(contactWith("One", Json::object({{"external_id", "E-1"}, {"seat", 1}})));
    const std::string two =
        create(contactWith("Two", Json::object({{"external_id", "E-2"}, {"seat", 2}})))["id"]
            .asString();
    create(Json::object({{"name", "Unset"}}));
    create(Json::object({{"name", "Unset too"}}));
    const Json changed =
        E2E_ASSERT_DATA(200, patchField("external_id", Json::object({{"unique", true}})));
    CPPUNIT_ASSERT_EQUAL(std::string("true"), changed["unique"].dump());
    E2E_ASSERT_DATA(200, patchField("seat", Json::object({{"unique", true}})));

    CRM_ASSERT_ERROR_MESSAGE(409, "A contact with this external_id already exists.",
                             post(contactWith("Dup", Json::object({{"external_id", "E-1"}}))));
    CRM_ASSERT_ERROR_MESSAGE(409, "A contact with this seat already exists.",
                             post(contactWith("Dup seat", Json::object({{"seat", 2}}))));
    CRM_ASSERT_ERROR_MESSAGE(
        409, "A contact with this external_id already exists.",
        patch(two, Json::object({{"custom_fields", Json::object({{"external_id", "E-1"}})}})));
    // Its own value again, a new value, and null (any number of nulls) pass.
    E2E_ASSERT_DATA(
        200, patch(two, Json::object({{"custom_fields", Json::object({{"external_id", "E-2"}})}})));
    create(contactWith("Three", Json::object({{"external_id", "E-3"}})));
    create(Json::object({{"name", "Unset three"}}));
    // A value freed by a PATCH or a delete may be taken.
    E2E_ASSERT_DATA(
        200,
        patch(two, Json::object({{"custom_fields", Json::object({{"external_id", Json()}})}})));
    create(contactWith("Takes E-2", Json::object({{"external_id", "E-2"}})));
    const std::string three =
        rapport::e2e::query::matching(*client_, token_, kContacts,
                                      Json::parse(R"({"custom_fields.external_id":"E-3"})"))
            .at(0);
    E2E_ASSERT_DATA(200, client_->del(kContacts + "/" + three, bearer(token_)));
    create(contactWith("Takes E-3", Json::object({{"external_id", "E-3"}})));
    // unique: false lifts it.
    E2E_ASSERT_DATA(200, patchField("external_id", Json::object({{"unique", false}})));
    create(contactWith("Dup allowed", Json::object({{"external_id", "E-1"}})));
  }

  void testRequiredLaterAppliesToLaterWrites() {
    define(fieldBody("contract_id", "text"));
    const std::string lacking = create(Json::object({{"name", "Lacking"}}))["id"].asString();
    create(contactWith("Having", Json::object({{"contract_id", "C-1"}})));
    const Json changed =
        E2E_ASSERT_DATA(200, patchField("contract_id", Json::object({{"required", true}})));
    CPPUNIT_ASSERT_EQUAL(std::string("true"), changed["required"].dump());
    // Existing records are untouched and still read.
    CPPUNIT_ASSERT(read(lacking)["custom_fields"]["contract_id"].isNull());
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), allRecords(*client_, token_, kContacts).size());
    // Later writes: a create must send it; a PATCH may not clear it; a PATCH
    // of other fields leaves the lacking record as it is.
    CF_ASSERT_CUSTOM_ERROR(post(Json::object({{"name", "New lacking"}})), "contract_id");
    create(contactWith("New having", Json::object({{"contract_id", "C-2"}})));
    E2E_ASSERT_DATA(200, patch(lacking, Json::object({{"job_title", "Still lacking"}})));
    CF_ASSERT_CUSTOM_ERROR(
        patch(lacking, Json::object({{"custom_fields", Json::object({{"contract_id", Json()}})}})),
        "contract_id");
    E2E_ASSERT_DATA(
        200,
        patch(lacking, Json::object({{"custom_fields", Json::object({{"contract_id", "C-3"}})}})));
    // required: false lifts it.
    E2E_ASSERT_DATA(200, patchField("contract_id", Json::object({{"required", false}})));
    create(Json::object({{"name", "Lacking again"}}));
  }

  // Writes keep the definitions they last read with the stamp of the
  // company's record type (custom_field_versions, migration 0018), which
  // every change of a definition row replaces, whoever writes it: a change
  // made straight in the database, as another instance's commit is, makes
  // the next create read them again (a required field now: 422).
  void testAChangeOutsideTheApiReachesTheNextWrite() {
    define(fieldBody("outside_ref", "text"));
    create(Json::object({{"name", "Before"}}));  // the set is read and kept
    create(Json::object({{"name", "Kept"}}));    // the kept set, still optional
    const std::string url = customFieldsServer().databaseUrl();
    const std::string field = " d.field_key = 'outside_ref' AND d.record_type = 'contact'";
    const auto stamp = [&] {
      const auto rows = queryDatabase(
          url,
          "SELECT v.stamp FROM custom_field_versions v JOIN custom_field_definitions d ON "
          "d.company_id = v.company_id AND d.record_type = v.record_type WHERE" +
              field);
      CPPUNIT_ASSERT_EQUAL(std::size_t(1), rows.size());
      CPPUNIT_ASSERT(!rows[0][0].empty());
      return rows[0][0];
    };
    const std::string before = stamp();
    const auto changed = queryDatabase(
        url,
        "UPDATE custom_field_definitions SET required = (1 = 1) WHERE id IN (SELECT d.id FROM "
        "custom_field_definitions d WHERE" +
            field + ") RETURNING id");
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), changed.size());
    CPPUNIT_ASSERT(stamp() != before);
    CF_ASSERT_CUSTOM_ERROR(post(Json::object({{"name", "After"}})), "outside_ref");
    create(contactWith("Having", Json::object({{"outside_ref", "R-1"}})));
  }

  // A new default applies to later creates only; a default of the wrong
  // type or outside the options is a 422.
  void testDefaultAndLabelChanges() {
    define(fieldBody("tier", "select", Json::object({{"options", optionsOf({"bronze", "gold"})}})));
    const std::string before = create(Json::object({{"name", "Before"}}))["id"].asString();
    CF_ASSERT_ERROR_KEY(patchField("tier", Json::object({{"default", "silver"}})), "default");
    E2E_ASSERT_DATA(200,
                    patchField("tier", Json::object({{"default", "gold"}, {"label", "Tier"}})));
    const Json after = create(Json::object({{"name", "After"}}));
    CF_ASSERT_CUSTOM_FIELDS(R"({"tier":"gold"})", after);
    CF_ASSERT_CUSTOM_FIELDS(R"({"tier":null})", read(before));
    // Removing the option that is the default (no record uses it) is
    // refused, or takes the default with it: never a default outside the
    // options.
    E2E_ASSERT_DATA(200, client_->del(kContacts + "/" + after["id"].asString(), bearer(token_)));
    const HttpResult removed =
        patchField("tier", Json::object({{"options", optionsOf({"bronze"})}}));
    if (removed.status == 200) {
      const Json field = E2E_ASSERT_DATA(200, removed);
      CPPUNIT_ASSERT_MESSAGE(field.dump(), field["default"].isNull());
    } else {
      CPPUNIT_ASSERT_MESSAGE(describe(removed), removed.status == 422 || removed.status == 409);
    }
    E2E_ASSERT_DATA(200, patchField("tier", Json::object({{"default", Json()}})));
    CF_ASSERT_CUSTOM_FIELDS(R"({"tier":null})", create(Json::object({{"name", "No default"}})));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(CfChangesTest);
