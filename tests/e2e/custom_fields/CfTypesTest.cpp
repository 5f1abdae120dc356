// The 15 types of decisions §14, each through rapportd: a valid value sent
// on POST reads back (in the POST answer and on GET) as the contract says it
// is answered (text trimmed, e-mail lower-cased, a date-time in UTC, a
// multi_select in the order sent...), null clears, and invalid values answer
// 422 on custom_fields.<key>.
#include <cppunit/extensions/HelperMacros.h>

#include <cmath>
#include <ctime>

#include "e2e/custom_fields/CustomFieldsSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::custom_fields;

class CfTypesTest : public CustomFieldsFixture {
  CPPUNIT_TEST_SUITE(CfTypesTest);
  CPPUNIT_TEST(testText);
  CPPUNIT_TEST(testLongText);
  CPPUNIT_TEST(testNumber);
  CPPUNIT_TEST(testDecimal);
  CPPUNIT_TEST(testMoney);
  CPPUNIT_TEST(testBoolean);
  CPPUNIT_TEST(testDate);
  CPPUNIT_TEST(testDateTime);
  CPPUNIT_TEST(testSelect);
  CPPUNIT_TEST(testMultiSelect);
  CPPUNIT_TEST(testEmail);
  CPPUNIT_TEST(testUrl);
  CPPUNIT_TEST(testPhone);
  CPPUNIT_TEST(testUser);
  CPPUNIT_TEST(testReference);
  CPPUNIT_TEST_SUITE_END();

 public:
  // POSTs a contact with {key: sent}; the POST answer and the GET show
  // `expected` under custom_fields.key. Returns the created contact.
  Json roundTrip(const std::string& key, const Json& sent, const Json& expected) {
    const Json body = contactWith("Typed", Json::object({{key, sent}}));
    Json created;
    withRequest("POST " + kContacts + " " + body.dump(), [&] {
      created = create(body);
      CPPUNIT_ASSERT_EQUAL_MESSAGE("POST answer " + created.dump(), expected.dump(),
                                   created["custom_fields"][key].dump());
      const Json got = read(created["id"].asString());
      CPPUNIT_ASSERT_EQUAL_MESSAGE("GET answer " + got.dump(), expected.dump(),
                                   got["custom_fields"][key].dump());
    });
    return created;
  }
  Json roundTrip(const std::string& key, const Json& value) { return roundTrip(key, value, value); }

  // POST {key: sent} answers 422 on custom_fields.key, and so does a PATCH of
  // an existing contact with it.
  void refused(const std::string& key, const Json& sent) {
    const Json body = contactWith("Refused", Json::object({{key, sent}}));
    withRequest("POST " + kContacts + " " + body.dump(),
                [&] { CF_ASSERT_CUSTOM_ERROR(post(body), key); });
    if (patchTarget_.empty()) {
      patchTarget_ = create(Json::object({{"name", "Patched"}}))["id"].asString();
    }
    const Json change = Json::object({{"custom_fields", Json::object({{key, sent}})}});
    withRequest("PATCH " + kContacts + "/" + patchTarget_ + " " + change.dump(),
                [&] { CF_ASSERT_CUSTOM_ERROR(patch(patchTarget_, change), key); });
  }

  void testText() {
    define(fieldBody("nickname", "text"));
    roundTrip("nickname", "  Ada Lovelace  ", "Ada Lovelace");
    roundTrip("nickname", std::string(255, 'x'));
    roundTrip("nickname", Json());
    refused("nickname", std::string(256, 'x'));
    refused("nickname", 5);
    refused("nickname", true);
    refused("nickname", Json::array());
  }

  void testLongText() {
    define(fieldBody("story", "long_text"));
    std::string story;
    while (story.size() < 10000) story += "line of a long story\n";
    story.resize(10000);
    story.back() = '.';
    roundTrip("story", story);
    roundTrip("story", "short");
    refused("story", story + "x");
    refused("story", 10);
    refused("story", Json::object());
  }

  void testNumber() {
    define(fieldBody("seats", "number"));
    roundTrip("seats", 42);
    roundTrip("seats", -7);
    roundTrip("seats", 0);
    refused("seats", 1.5);
    refused("seats", "42");
    refused("seats", false);
  }

  // Decimals are JSON numbers: compared as numbers (12.345678 may be written
  // back in any exact JSON form).
  void testDecimal() {
    define(fieldBody("ratio", "decimal"));
    for (const double value : {12.345678, -0.5, 3.0}) {
      const Json created = create(contactWith("Decimal", Json::object({{"ratio", value}})));
      for (const Json& record : {created, read(created["id"].asString())}) {
        const Json& got = record["custom_fields"]["ratio"];
        CPPUNIT_ASSERT_MESSAGE(record.dump(),
                               got.isNumber() && std::fabs(got.asDouble() - value) < 1e-9);
      }
    }
    refused("ratio", "1.5");
    refused("ratio", true);
    refused("ratio", 1e-7);
    refused("ratio", 1.1234567);  // 7 decimals
    refused("ratio", 12.3456789);
  }

  void testMoney() {
    define(fieldBody("budget", "money"));
    roundTrip("budget", 1999);
    roundTrip("budget", 0);
    refused("budget", -1);
    refused("budget", 10.5);
    refused("budget", "1999");
  }

  void testBoolean() {
    define(fieldBody("vip", "boolean"));
    roundTrip("vip", true);
    roundTrip("vip", false);
    refused("vip", "true");
    refused("vip", 1);
  }

  void testDate() {
    define(fieldBody("renewal", "date"));
    roundTrip("renewal", "2026-02-28");
    roundTrip("renewal", "2024-02-29");
    refused("renewal", "2026-02-30");
    refused("renewal", "2026-13-01");
    refused("renewal", "28.02.2026");
    refused("renewal", 20260228);
  }

  // Any offset is accepted and the instant is answered in UTC, like
  // created_at (ISO-8601 ending in Z).
  void testDateTime() {
    define(fieldBody("met_at", "datetime"));
    std::tm utc{};
    utc.tm_year = 2026 - 1900;
    utc.tm_mon = 2;
    utc.tm_mday = 1;
    utc.tm_hour = 8;
    utc.tm_min = 30;
    const std::int64_t expected = timegm(&utc);
    for (const char* sent :
         {"2026-03-01T10:30:00+02:00", "2026-03-01T08:30:00Z", "2026-03-01T03:30:00-05:00"}) {
      const Json created = create(contactWith("Met", Json::object({{"met_at", sent}})));
      for (const Json& record : {created, read(created["id"].asString())}) {
        const Json& got = record["custom_fields"]["met_at"];
        CPPUNIT_ASSERT_EQUAL_MESSAGE(std::string(sent) + " -> " + record.dump(), expected,
                                     E2E_ASSERT_ISO_UTC(got));
      }
    }
    refused("met_at", "2026-13-01T00:00:00Z");
    refused("met_at", "tomorrow");
    refused("met_at", 1772353800);
  }

  void testSelect() {
    define(
        fieldBody("source", "select", Json::object({{"options", optionsOf({"web", "referral"})}})));
    roundTrip("source", "web");
    roundTrip("source", "referral");
    refused("source", "tv");
    refused("source", "WEB");
    refused("source", Json::Array{"web"});
    refused("source", 1);
  }

  void testMultiSelect() {
    define(fieldBody("segments", "multi_select",
                     Json::object({{"options", optionsOf({"a", "b", "c"})}})));
    roundTrip("segments", Json::Array{"c", "a"});
    roundTrip("segments", Json::Array{"b"});
    refused("segments", Json::Array{"a", "a"});
    refused("segments", Json::Array{"d"});
    refused("segments", Json::Array{"a", 1});
    refused("segments", "a");
  }

  void testEmail() {
    define(fieldBody("billing_email", "email"));
    roundTrip("billing_email", "Ada@Example.COM", "ada@example.com");
    refused("billing_email", "not-an-address");
    refused("billing_email", "ada@");
    refused("billing_email", 7);
  }

  void testUrl() {
    define(fieldBody("site", "url"));
    roundTrip("site", "https://example.com/path?q=1");
    roundTrip("site", "http://example.org");
    refused("site", "ftp://example.com/file");
    refused("site", "example.com");
    refused("site", "javascript:alert(1)");
  }

  void testPhone() {
    define(fieldBody("mobile", "phone"));
    roundTrip("mobile", "+44 (20) 7946-0000");
    roundTrip("mobile", "555.123.4567");
    roundTrip("mobile", "112");
    refused("mobile", "12");
    refused("mobile", "call me");
    refused("mobile", std::string(33, '1'));
    refused("mobile", 5551234567);
  }

  // A member's user id of the company; another company's user, an unknown
  // id and a non-string are refused.
  void testUser() {
    define(fieldBody("account_manager", "user"));
    const Account member = crm::addMember(*client_, owner_, "member", "cf-user-member");
    roundTrip("account_manager", owner_.userId);
    roundTrip("account_manager", member.userId);
    const Account stranger = registerUser(*client_, "cf-user-stranger");
    refused("account_manager", stranger.userId);
    refused("account_manager", "user_nothere");
    refused("account_manager", 5);
  }

  // An id of the target type in the company: contacts, CRM companies and
  // deals as targets; an unknown id, an id of another type and a non-string
  // are refused.
  void testReference() {
    define(fieldBody("referrer", "reference", Json::object({{"target", "contact"}})));
    define(fieldBody("employer", "reference", Json::object({{"target", "company"}})));
    define(fieldBody("main_deal", "reference", Json::object({{"target", "deal"}})));
    const std::string contact = create(Json::object({{"name", "Referrer"}}))["id"].asString();
    const std::string company =
        createCrmCompany(*client_, token_, Json::object({{"name", "Employer"}}))["id"].asString();
    const std::string deal =
        crm::createDeal(*client_, token_, std::string("Main"))["id"].asString();
    roundTrip("referrer", contact);
    roundTrip("employer", company);
    roundTrip("main_deal", deal);
    refused("referrer", "cont_nothere");
    refused("referrer", company);
    refused("employer", contact);
    refused("main_deal", "deal_nothere");
    refused("referrer", 1);
  }

 private:
  std::string patchTarget_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(CfTypesTest);
