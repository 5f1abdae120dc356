// rapport::Validator: every rule's messages, exactly as clients read them.
#include <cppunit/extensions/HelperMacros.h>

#include "rapport/time.h"
#include "rapport/validation.h"

using rapport::Error;
using rapport::FieldErrors;
using rapport::Json;
using rapport::Validator;

namespace {

// The messages recorded for `field`, joined by "|"; "" when none.
std::string messages(const Validator& v, const std::string& field) {
  auto it = v.errors().find(field);
  if (it == v.errors().end()) return "";
  std::string joined;
  for (const auto& m : it->second) joined += (joined.empty() ? "" : "|") + m;
  return joined;
}

}  // namespace

class ValidationTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ValidationTest);
  CPPUNIT_TEST(testPresence);
  CPPUNIT_TEST(testRequired);
  CPPUNIT_TEST(testString);
  CPPUNIT_TEST(testStringCountsCodePoints);
  CPPUNIT_TEST(testEmail);
  CPPUNIT_TEST(testIsValidEmail);
  CPPUNIT_TEST(testInteger);
  CPPUNIT_TEST(testMoney);
  CPPUNIT_TEST(testBoolean);
  CPPUNIT_TEST(testDate);
  CPPUNIT_TEST(testTimestamp);
  CPPUNIT_TEST(testOneOf);
  CPPUNIT_TEST(testId);
  CPPUNIT_TEST(testTags);
  CPPUNIT_TEST(testTagLimits);
  CPPUNIT_TEST(testUrl);
  CPPUNIT_TEST(testCurrency);
  CPPUNIT_TEST(testNulCharactersAreRefused);
  CPPUNIT_TEST(testCheck);
  CPPUNIT_TEST(testHelpers);
  CPPUNIT_TEST(testApplyToFollowsPatchSemantics);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testPresence() {
    const Json body = Json::parse(R"({"name": null})");
    Validator v(body);
    auto absent = v.string("title");
    CPPUNIT_ASSERT(!absent.present && !absent.value && !absent.isNull());
    auto null = v.string("name");
    CPPUNIT_ASSERT(null.present && !null.value && null.isNull());
    CPPUNIT_ASSERT(v.ok());
    CPPUNIT_ASSERT(v.present("name"));
    CPPUNIT_ASSERT(!v.present("title"));
    CPPUNIT_ASSERT_EQUAL(std::string("x"), absent.valueOr("x"));
  }

  void testRequired() {
    const Json body = Json::parse(R"({"a": null, "b": "   ", "c": "", "first_name": " "})");
    Validator v(body);
    v.string("a", {.required = true});
    v.string("b", {.required = true});
    v.string("c", {.required = true});
    v.string("missing", {.required = true});
    v.email("first_name", true);
    v.integer("n", {.required = true, .min = {}, .max = {}});
    CPPUNIT_ASSERT_EQUAL(std::string("The a field is required."), messages(v, "a"));
    CPPUNIT_ASSERT_EQUAL(std::string("The b field is required."), messages(v, "b"));
    CPPUNIT_ASSERT_EQUAL(std::string("The c field is required."), messages(v, "c"));
    CPPUNIT_ASSERT_EQUAL(std::string("The missing field is required."), messages(v, "missing"));
    CPPUNIT_ASSERT_EQUAL(std::string("The first_name field is required."),
                         messages(v, "first_name"));
    CPPUNIT_ASSERT_EQUAL(std::string("The n field is required."), messages(v, "n"));
  }

  void testString() {
    const Json body = Json::parse(
        R"({"name": "  Ann  ", "num": 5, "long": "abcdef", "short": "ab", "raw": " x "})");
    Validator v(body);
    CPPUNIT_ASSERT_EQUAL(std::string("Ann"), *v.string("name").value);
    CPPUNIT_ASSERT(!v.string("num").value);
    CPPUNIT_ASSERT_EQUAL(std::string("The num must be a string."), messages(v, "num"));
    v.string("long", {.max = 5});
    CPPUNIT_ASSERT_EQUAL(std::string("The long may not be greater than 5 characters."),
                         messages(v, "long"));
    v.string("short", {.min = 3});
    CPPUNIT_ASSERT_EQUAL(std::string("The short must be at least 3 characters."),
                         messages(v, "short"));
    CPPUNIT_ASSERT_EQUAL(std::string(" x "), *v.string("raw", {.trim = false}).value);
  }

  void testStringCountsCodePoints() {
    const Json body = Json::object({{"name", "\xC3\xA9\xC3\xA9\xC3\xA9"}});  // "ééé": 6 bytes
    Validator v(body);
    CPPUNIT_ASSERT(v.string("name", {.max = 3}).value);
    CPPUNIT_ASSERT(!v.string("name", {.max = 2}).value);
  }

  void testEmail() {
    const Json body =
        Json::parse(R"({"a": " Ann@Example.COM ", "b": "not-an-email", "c": 5, "d": ""})");
    Validator v(body);
    CPPUNIT_ASSERT_EQUAL(std::string("ann@example.com"), *v.email("a").value);
    CPPUNIT_ASSERT(!v.email("b").value);
    CPPUNIT_ASSERT_EQUAL(std::string("The b must be a valid email address."), messages(v, "b"));
    v.email("c");
    CPPUNIT_ASSERT_EQUAL(std::string("The c must be a string."), messages(v, "c"));
    v.email("d");
    CPPUNIT_ASSERT_EQUAL(std::string("The d must be a valid email address."), messages(v, "d"));
  }

  void testIsValidEmail() {
    using rapport::isValidEmail;
    CPPUNIT_ASSERT(isValidEmail("a@b.co"));
    CPPUNIT_ASSERT(isValidEmail("first.last+tag@sub.example-mail.com"));
    CPPUNIT_ASSERT(!isValidEmail(""));
    CPPUNIT_ASSERT(!isValidEmail("@b.co"));
    CPPUNIT_ASSERT(!isValidEmail("a@"));
    CPPUNIT_ASSERT(!isValidEmail("a@b"));
    CPPUNIT_ASSERT(!isValidEmail("a@@b.co"));
    CPPUNIT_ASSERT(!isValidEmail("a@b@c.co"));
    CPPUNIT_ASSERT(!isValidEmail("a b@c.co"));
    CPPUNIT_ASSERT(!isValidEmail("a@-b.co"));
    CPPUNIT_ASSERT(!isValidEmail("a@b-.co"));
    CPPUNIT_ASSERT(!isValidEmail("a@b..co"));
    CPPUNIT_ASSERT(!isValidEmail(".a@b.co"));
    CPPUNIT_ASSERT(!isValidEmail("a..b@c.co"));
    CPPUNIT_ASSERT(!isValidEmail(std::string(65, 'a') + "@b.co"));
    CPPUNIT_ASSERT(isValidEmail(std::string(64, 'a') + "@b.co"));
    const std::string domain = std::string(63, 'd') + "." + std::string(63, 'd') + "." +
                               std::string(63, 'd') + ".com";            // 195 characters
    CPPUNIT_ASSERT(isValidEmail(std::string(58, 'a') + "@" + domain));   // 254
    CPPUNIT_ASSERT(!isValidEmail(std::string(59, 'a') + "@" + domain));  // 255
  }

  void testInteger() {
    const Json body = Json::parse(
        R"({"a": 5, "b": 5.0, "c": "5", "d": 1e2, "e": 9223372036854775808, "f": 0, "g": 101})");
    Validator v(body);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{5}, *v.integer("a").value);
    for (const char* field : {"b", "c", "d", "e"}) {
      CPPUNIT_ASSERT(!v.integer(field).value);
      CPPUNIT_ASSERT_EQUAL("The " + std::string(field) + " must be an integer.",
                           messages(v, field));
    }
    v.integer("f", {.required = false, .min = 1, .max = {}});
    CPPUNIT_ASSERT_EQUAL(std::string("The f must be at least 1."), messages(v, "f"));
    v.integer("g", {.required = false, .min = 0, .max = 100});
    CPPUNIT_ASSERT_EQUAL(std::string("The g may not be greater than 100."), messages(v, "g"));
  }

  void testMoney() {
    const Json body = Json::parse(R"({"value": -1, "fee": 0, "price": 12.5})");
    Validator v(body);
    CPPUNIT_ASSERT(!v.money("value").value);
    CPPUNIT_ASSERT_EQUAL(std::string("The value must be at least 0."), messages(v, "value"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, *v.money("fee").value);
    v.money("price");
    CPPUNIT_ASSERT_EQUAL(std::string("The price must be an integer."), messages(v, "price"));
    v.money("amount", true);
    CPPUNIT_ASSERT_EQUAL(std::string("The amount field is required."), messages(v, "amount"));
  }

  void testBoolean() {
    const Json body = Json::parse(R"({"a": true, "b": 1, "c": "true"})");
    Validator v(body);
    CPPUNIT_ASSERT_EQUAL(true, *v.boolean("a").value);
    v.boolean("b");
    v.boolean("c");
    CPPUNIT_ASSERT_EQUAL(std::string("The b field must be true or false."), messages(v, "b"));
    CPPUNIT_ASSERT_EQUAL(std::string("The c field must be true or false."), messages(v, "c"));
  }

  void testDate() {
    const Json body = Json::parse(
        R"({"leap": "2024-02-29", "not_leap": "2023-02-29", "century": "1900-02-29",
            "y2k": "2000-02-29", "format": "2024-2-01", "month": "2024-13-01", "day": "2024-04-31"})");
    Validator v(body);
    CPPUNIT_ASSERT_EQUAL(std::string("2024-02-29"), *v.date("leap").value);
    CPPUNIT_ASSERT(v.date("y2k").value);
    for (const char* field : {"not_leap", "century", "format", "month", "day"}) {
      CPPUNIT_ASSERT(!v.date(field).value);
      CPPUNIT_ASSERT_EQUAL("The " + std::string(field) + " is not a valid date.",
                           messages(v, field));
    }
    CPPUNIT_ASSERT(rapport::isValidDate("2024-12-31"));
    CPPUNIT_ASSERT(!rapport::isValidDate("2024-00-10"));
    CPPUNIT_ASSERT(!rapport::isValidDate("2024-01-00"));
    CPPUNIT_ASSERT(!rapport::isValidDate("2024-01-01T00:00:00Z"));
    CPPUNIT_ASSERT(!rapport::isValidDate("2024/01/01"));
    CPPUNIT_ASSERT(!rapport::isValidDate("+024-01-01"));
  }

  void testTimestamp() {
    const Json body = Json::parse(
        R"({"a": "2023-11-14T22:13:20Z", "b": "2023-11-15T00:13:20.5+02:00", "c": "2023-11-14",
            "d": "2023-11-14T22:13:20z", "e": 1700000000})");
    Validator v(body);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1700000000000000}, *v.timestamp("a").value);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1700000000500000}, *v.timestamp("b").value);
    for (const char* field : {"c", "d"}) {
      CPPUNIT_ASSERT(!v.timestamp(field).value);
      CPPUNIT_ASSERT_EQUAL("The " + std::string(field) + " is not a valid date-time.",
                           messages(v, field));
    }
    v.timestamp("e");
    CPPUNIT_ASSERT_EQUAL(std::string("The e must be a string."), messages(v, "e"));
  }

  void testOneOf() {
    const Json body = Json::parse(R"({"status": "won", "type": "Call"})");
    Validator v(body);
    CPPUNIT_ASSERT_EQUAL(std::string("won"), *v.oneOf("status", {"open", "won", "lost"}).value);
    CPPUNIT_ASSERT(!v.oneOf("type", {"call", "email"}).value);
    CPPUNIT_ASSERT_EQUAL(std::string("The selected type is invalid."), messages(v, "type"));
    v.oneOf("kind", {"a"}, true);
    CPPUNIT_ASSERT_EQUAL(std::string("The kind field is required."), messages(v, "kind"));
  }

  void testId() {
    const Json body = Json::parse(R"({"a": "cont_x", "b": 12, "c": ""})");
    Validator v(body);
    CPPUNIT_ASSERT_EQUAL(std::string("cont_x"), *v.id("a").value);
    v.id("b");
    v.id("c");
    CPPUNIT_ASSERT_EQUAL(std::string("The b must be a string."), messages(v, "b"));
    CPPUNIT_ASSERT_EQUAL(std::string("The c must be a string."), messages(v, "c"));
    v.id("owner_id", true);
    CPPUNIT_ASSERT_EQUAL(std::string("The owner_id field is required."), messages(v, "owner_id"));
  }

  void testTags() {
    const Json body = Json::parse(R"({"tags": [" vip ", "Lead", "VIP", "lead", "new"]})");
    Validator v(body);
    const auto tags = v.tags("tags");
    CPPUNIT_ASSERT(v.ok());
    const std::vector<std::string> expected{"vip", "Lead", "new"};
    CPPUNIT_ASSERT(expected == *tags.value);

    const Json wrong = Json::parse(R"({"tags": "vip", "labels": [1, "ok", "  ", "x"]})");
    Validator w(wrong);
    CPPUNIT_ASSERT(!w.tags("tags").value);
    CPPUNIT_ASSERT_EQUAL(std::string("The tags must be an array."), messages(w, "tags"));
    CPPUNIT_ASSERT(!w.tags("labels").value);
    CPPUNIT_ASSERT_EQUAL(std::string("The labels.0 must be a string."), messages(w, "labels.0"));
    CPPUNIT_ASSERT_EQUAL(std::string("The labels.2 must be between 1 and 50 characters."),
                         messages(w, "labels.2"));
    CPPUNIT_ASSERT_EQUAL(std::string(""), messages(w, "labels.1"));
  }

  void testTagLimits() {
    Json fifty = Json::array(), fiftyOne = Json::array();
    for (int i = 0; i < 51; ++i) {
      if (i < 50) fifty.push("t" + std::to_string(i));
      fiftyOne.push("t" + std::to_string(i));
    }
    Json longTag = Json::array();
    longTag.push(std::string(50, 'x')).push(std::string(51, 'y'));
    const Json body = Json::object({{"a", fifty}, {"b", fiftyOne}, {"c", longTag}});
    Validator v(body);
    CPPUNIT_ASSERT_EQUAL(std::size_t{50}, v.tags("a").value->size());
    CPPUNIT_ASSERT(!v.tags("b").value);
    CPPUNIT_ASSERT_EQUAL(std::string("The b may not have more than 50 items."), messages(v, "b"));
    CPPUNIT_ASSERT(!v.tags("c").value);
    CPPUNIT_ASSERT_EQUAL(std::string(""), messages(v, "c.0"));
    CPPUNIT_ASSERT_EQUAL(std::string("The c.1 must be between 1 and 50 characters."),
                         messages(v, "c.1"));
    CPPUNIT_ASSERT(v.tags("missing").value == std::nullopt);
  }

  // Deals' currency and a resource's Currency field share this rule.
  void testCurrency() {
    const Json body = Json::parse(
        R"({"a": "EUR", "b": "eur", "c": "EURO", "d": "E1R", "e": "", "f": null, "g": 5})");
    Validator v(body);
    CPPUNIT_ASSERT_EQUAL(std::string("EUR"), *v.currency("a").value);
    for (const char* field : {"b", "c", "d"}) {
      CPPUNIT_ASSERT_MESSAGE(field, !v.currency(field).value);
      CPPUNIT_ASSERT_EQUAL("The " + std::string(field) + " must be a 3-letter upper-case code.",
                           messages(v, field));
    }
    CPPUNIT_ASSERT(v.currency("f").isNull());  // null clears (PATCH)
    CPPUNIT_ASSERT(!v.currency("absent").present);
    CPPUNIT_ASSERT(!v.currency("g").value);  // not a string: the string rule's message
    CPPUNIT_ASSERT(!messages(v, "g").empty());
    CPPUNIT_ASSERT(!v.currency("missing", true).value);
    CPPUNIT_ASSERT_EQUAL(std::string("The missing field is required."), messages(v, "missing"));
    CPPUNIT_ASSERT(rapport::isCurrencyCode("USD"));
    CPPUNIT_ASSERT(!rapport::isCurrencyCode("US"));
    CPPUNIT_ASSERT(!rapport::isCurrencyCode("ÜSD"));
  }

  void testUrl() {
    const Json body = Json::parse(R"({
      "a": "https://example.com/hook?x=1", "b": "http://localhost:8080/x",
      "c": "ftp://example.com", "d": "https://", "e": "https://exa mple.com",
      "f": "example.com", "g": "HTTPS://Example.com", "h": "http://[::1]:9000/",
      "i": "http://host:99999/", "j": "https://-bad.com/"})");
    Validator v(body);
    for (const char* field : {"a", "b", "g", "h"}) {
      CPPUNIT_ASSERT_MESSAGE(field, v.url(field).value.has_value());
    }
    for (const char* field : {"c", "d", "e", "f", "i", "j"}) {
      CPPUNIT_ASSERT_MESSAGE(field, !v.url(field).value);
      CPPUNIT_ASSERT_EQUAL("The " + std::string(field) + " must be a valid URL.",
                           messages(v, field));
    }
    const Json tooLong = Json::object({{"u", "https://example.com/" + std::string(2030, 'p')}});
    Validator w(tooLong);
    CPPUNIT_ASSERT(!w.url("u").value);
    CPPUNIT_ASSERT_EQUAL(std::string("The u may not be greater than 2048 characters."),
                         messages(w, "u"));
  }

  void testNulCharactersAreRefused() {
    // PostgreSQL text cannot hold NUL: every rule that keeps free text refuses
    // it with one message, whatever else is wrong with the value.
    const std::string nul("\0", 1);
    const Json body = Json::parse(R"({
      "name": "Ann\u0000Lee", "email": "ann\u0000@example.com", "id": "cont_\u0000",
      "url": "https://example.com/\u0000", "blank": " \u0000 ", "raw": "\u0000",
      "tags": ["ok", "v\u0000ip", "\u0000"], "plain": "Ann Lee"})");
    CPPUNIT_ASSERT(body["name"].asString().find(nul) != std::string::npos);
    Validator v(body);
    CPPUNIT_ASSERT(!v.string("name").value);
    CPPUNIT_ASSERT(!v.email("email").value);
    CPPUNIT_ASSERT(!v.id("id").value);
    CPPUNIT_ASSERT(!v.url("url").value);
    CPPUNIT_ASSERT(!v.string("blank", {.required = true}).value);
    CPPUNIT_ASSERT(!v.string("raw", {.trim = false}).value);
    const auto tags = v.tags("tags");
    CPPUNIT_ASSERT(tags.present && !tags.value);
    for (const char* field : {"name", "email", "id", "url", "blank", "raw", "tags.1", "tags.2"}) {
      CPPUNIT_ASSERT_EQUAL("The " + std::string(field) + " must not contain null characters.",
                           messages(v, field));
    }
    CPPUNIT_ASSERT_EQUAL(std::string(""), messages(v, "tags.0"));
    CPPUNIT_ASSERT_EQUAL(std::string("Ann Lee"), *v.string("plain").value);
    CPPUNIT_ASSERT_EQUAL(std::size_t{8}, v.errors().size());
  }

  void testCheck() {
    const Json body = Json::parse(R"({"name": "", "email": "x"})");
    Validator v(body);
    v.string("name", {.required = true});
    v.email("email");
    v.fail("email", "The email has already been taken.");
    try {
      v.check();
      CPPUNIT_FAIL("check() passed with errors");
    } catch (const Error& e) {
      CPPUNIT_ASSERT_EQUAL(422, e.status());
      CPPUNIT_ASSERT_EQUAL(std::string("The email must be a valid email address."),
                           std::string(e.what()));
      CPPUNIT_ASSERT_EQUAL(std::size_t{2}, e.errors().at("email").size());
      CPPUNIT_ASSERT_EQUAL(std::string("The name field is required."), e.errors().at("name")[0]);
    }
    Validator ok(body);
    ok.string("name");
    CPPUNIT_ASSERT_NO_THROW(ok.check());
    // A body that is not an object has no fields.
    const Json array = Json::array();
    Validator none(array);
    CPPUNIT_ASSERT(!none.string("name").present);
  }

  void testHelpers() {
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, rapport::utf8Length(""));
    CPPUNIT_ASSERT_EQUAL(std::size_t{5}, rapport::utf8Length("h\xC3\xA9llo"));
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, rapport::utf8Length("\xF0\x9F\x98\x80"));
    CPPUNIT_ASSERT_EQUAL(std::string("abc\xC3\x89"), rapport::toLower("AbC\xC3\x89"));
    CPPUNIT_ASSERT_EQUAL(std::string("a b"), rapport::trim(" \t\r\na b\n "));
    CPPUNIT_ASSERT_EQUAL(std::string(""), rapport::trim("   "));
  }

  void testApplyToFollowsPatchSemantics() {
    Json body = Json::parse(R"({"phone": "+1 555", "notes": null})");
    rapport::Validator v(body);
    auto phone = v.string("phone");
    auto notes = v.string("notes");
    auto title = v.string("job_title");
    auto tags = v.tags("tags");
    v.check();

    std::optional<std::string> phoneTarget = "old", notesTarget = "old", titleTarget = "old";
    std::vector<std::string> tagsTarget = {"kept"};
    CPPUNIT_ASSERT(phone.applyTo(phoneTarget));
    CPPUNIT_ASSERT_EQUAL(std::string("+1 555"), *phoneTarget);
    CPPUNIT_ASSERT(notes.applyTo(notesTarget));  // a sent null clears
    CPPUNIT_ASSERT(!notesTarget);
    CPPUNIT_ASSERT(!title.applyTo(titleTarget));  // absent: unchanged
    CPPUNIT_ASSERT_EQUAL(std::string("old"), *titleTarget);
    CPPUNIT_ASSERT(!tags.applyTo(tagsTarget));
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), tagsTarget.size());

    Json cleared = Json::parse(R"({"tags": null})");
    rapport::Validator w(cleared);
    auto sentNull = w.tags("tags");
    CPPUNIT_ASSERT(sentNull.applyTo(tagsTarget));  // no-null target: null stores {}
    CPPUNIT_ASSERT(tagsTarget.empty());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ValidationTest);
