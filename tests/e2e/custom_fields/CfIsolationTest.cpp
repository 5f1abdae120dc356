// Companies do not share custom fields (decisions §14): a key defined in
// company A is unknown in company B, in a body and in a filter, and B's list
// of definitions is empty, also for the same user switched to B; B defines
// the same key its own way. References (a reference field, a user field)
// accept only records and members of the company, and a deleted referenced
// record leaves the value null.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/custom_fields/CustomFieldsSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::custom_fields;

class CfIsolationTest : public CustomFieldsFixture {
  CPPUNIT_TEST_SUITE(CfIsolationTest);
  CPPUNIT_TEST(testKeyOfAnotherCompanyIsUnknown);
  CPPUNIT_TEST(testSameUserInTwoCompanies);
  CPPUNIT_TEST(testReferenceToAnotherCompanysRecordIs422);
  CPPUNIT_TEST(testDeletingTheReferencedRecordNullsTheValue);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testKeyOfAnotherCompanyIsUnknown() {
    define(fieldBody("region", "select", Json::object({{"options", optionsOf({"eu", "us"})}})));
    create(contactWith("In A", Json::object({{"region", "eu"}})));
    const Account b = registerUser(*client_, "cf-isolation-b");
    const Headers asB = bearer(b.token);

    CPPUNIT_ASSERT_EQUAL(std::size_t(0), listFields(*client_, b.token, kContacts).size());
    CF_ASSERT_CUSTOM_ERROR(
        client_->post(kContacts, contactWith("In B", Json::object({{"region", "eu"}})), asB),
        "region");
    const Json plain =
        E2E_ASSERT_DATA(201, client_->post(kContacts, Json::object({{"name", "Plain B"}}), asB));
    CF_ASSERT_CUSTOM_FIELDS("{}", plain);
    CF_ASSERT_CUSTOM_ERROR(
        client_->patch(kContacts + "/" + plain["id"].asString(),
                       Json::object({{"custom_fields", Json::object({{"region", "eu"}})}}), asB),
        "region");
    CF_ASSERT_ERROR_KEY(
        client_->get(kContacts + "?" + filterParam(Json::parse(R"({"custom_fields.region":"eu"})")),
                     asB),
        "filter.custom_fields.region");
    CF_ASSERT_ERROR_KEY(client_->get(kContacts + "?sort=custom_fields.region", asB), "sort");
    CF_ASSERT_ERROR_KEY(
        client_->post(kContacts + "/search",
                      Json::object({{"filter", Json::parse(R"({"custom_fields.region":"eu"})")}}),
                      asB),
        "filter.custom_fields.region");

    // B defines region its own way; A's stays a select.
    defineField(*client_, b.token, kContacts, fieldBody("region", "number"));
    const Json inB = E2E_ASSERT_DATA(
        201, client_->post(kContacts, contactWith("Numbered", Json::object({{"region", 7}})), asB));
    CF_ASSERT_CUSTOM_FIELDS(R"({"region":7})", inB);
    CF_ASSERT_CUSTOM_ERROR(post(contactWith("Numbered in A", Json::object({{"region", 7}}))),
                           "region");
    CPPUNIT_ASSERT_EQUAL(std::string("select"), fields().asArray().at(0)["type"].asString());
    // Each filter sees only its own company's records.
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), matching(R"({"custom_fields.region":"eu"})").size());
    CPPUNIT_ASSERT(idsOf(getBody(*client_, b.token,
                                 kContacts + "?" +
                                     filterParam(Json::parse(R"({"custom_fields.region":7})")))) ==
                   (Ids{inB["id"].asString()}));
  }

  // One user, owner of two companies: the token of each sees its own fields.
  void testSameUserInTwoCompanies() {
    define(fieldBody("only_in_a", "text"));
    const std::string second = createCompany(*client_, token_, "CF Second Ltd");
    const std::string inB = switchContext(*client_, token_, second);
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), listFields(*client_, inB, kContacts).size());
    CF_ASSERT_CUSTOM_ERROR(
        client_->post(kContacts, contactWith("B", Json::object({{"only_in_a", "x"}})), bearer(inB)),
        "only_in_a");
    CRM_ASSERT_ERROR_MESSAGE(404, "Custom field not found.",
                             client_->get(fieldsPath(kContacts, "only_in_a"), bearer(inB)));
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), fields().size());
  }

  void testReferenceToAnotherCompanysRecordIs422() {
    define(fieldBody("referrer", "reference", Json::object({{"target", "contact"}})));
    define(fieldBody("employer", "reference", Json::object({{"target", "company"}})));
    define(fieldBody("manager", "user"));
    const Account b = registerUser(*client_, "cf-reference-b");
    const std::string foreignContact =
        createContact(*client_, b.token, Json::object({{"name", "Foreign"}}))["id"].asString();
    const std::string foreignCompany =
        createCrmCompany(*client_, b.token, Json::object({{"name", "Foreign Ltd"}}))["id"]
            .asString();
    CF_ASSERT_CUSTOM_ERROR(post(contactWith("R", Json::object({{"referrer", foreignContact}}))),
                           "referrer");
    CF_ASSERT_CUSTOM_ERROR(post(contactWith("E", Json::object({{"employer", foreignCompany}}))),
                           "employer");
    CF_ASSERT_CUSTOM_ERROR(post(contactWith("M", Json::object({{"manager", b.userId}}))),
                           "manager");
    const std::string mine = create(Json::object({{"name", "Mine"}}))["id"].asString();
    CF_ASSERT_CUSTOM_ERROR(
        patch(mine,
              Json::object({{"custom_fields", Json::object({{"referrer", foreignContact}})}})),
        "referrer");
    CPPUNIT_ASSERT(read(mine)["custom_fields"]["referrer"].isNull());
  }

  void testDeletingTheReferencedRecordNullsTheValue() {
    define(fieldBody("referrer", "reference", Json::object({{"target", "contact"}})));
    define(fieldBody("employer", "reference", Json::object({{"target", "company"}})));
    const std::string referred = create(Json::object({{"name", "Referred"}}))["id"].asString();
    const std::string employer =
        createCrmCompany(*client_, token_, Json::object({{"name", "Employer"}}))["id"].asString();
    const std::string other = create(Json::object({{"name", "Other"}}))["id"].asString();
    const std::string referring = create(contactWith(
        "Referring", Json::object({{"referrer", referred}, {"employer", employer}})))["id"]
                                      .asString();
    const std::string keeps =
        create(contactWith("Keeps", Json::object({{"referrer", other}})))["id"].asString();
    // A deal refers to the contact too, through a field of deals.
    defineField(*client_, token_, kDeals,
                fieldBody("champion", "reference", Json::object({{"target", "contact"}})));
    Json deal = crm::createDeal(*client_, token_, std::string("Championed"));
    E2E_ASSERT_DATA(
        200,
        patch(deal["id"].asString(),
              Json::object({{"custom_fields", Json::object({{"champion", referred}})}}), kDeals));

    E2E_ASSERT_DATA(200, client_->del(kContacts + "/" + referred, bearer(token_)));
    CF_ASSERT_CUSTOM_FIELDS(R"({"referrer":null,"employer":")" + employer + "\"}", read(referring));
    CF_ASSERT_CUSTOM_FIELDS(R"({"referrer":")" + other + R"(","employer":null})", read(keeps));
    CF_ASSERT_CUSTOM_FIELDS(R"({"champion":null})", read(deal["id"].asString(), kDeals));
    CPPUNIT_ASSERT(matching("{\"custom_fields.referrer\":\"" + referred + "\"}").empty());
    CPPUNIT_ASSERT(matching(R"({"custom_fields.referrer":{"null":true}})") ==
                   (Ids{other, referring}));

    E2E_ASSERT_DATA(200, client_->del(kCompanies + "/" + employer, bearer(token_)));
    CF_ASSERT_CUSTOM_FIELDS(R"({"referrer":null,"employer":null})", read(referring));
    // The deleted id is no longer accepted.
    CF_ASSERT_CUSTOM_ERROR(post(contactWith("Late", Json::object({{"referrer", referred}}))),
                           "referrer");
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(CfIsolationTest);
