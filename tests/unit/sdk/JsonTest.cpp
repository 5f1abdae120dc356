// rapport::Json: the strict parser, the writer and object semantics.
#include <cppunit/extensions/HelperMacros.h>

#include <cmath>
#include <limits>
#include <string>

#include "rapport/json.h"

using rapport::Json;
using rapport::JsonParseError;

namespace {

bool refused(const std::string& text) {
  try {
    Json::parse(text);
    return false;
  } catch (const JsonParseError&) {
    return true;
  }
}

std::string nested(int depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

}  // namespace

class JsonTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(JsonTest);
  CPPUNIT_TEST(testScalars);
  CPPUNIT_TEST(testInt64Extremes);
  CPPUNIT_TEST(testDoubles);
  CPPUNIT_TEST(testRoundTrip);
  CPPUNIT_TEST(testMalformedRefused);
  CPPUNIT_TEST(testErrorOffset);
  CPPUNIT_TEST(testDepthLimit);
  CPPUNIT_TEST(testEscapesParsed);
  CPPUNIT_TEST(testSurrogates);
  CPPUNIT_TEST(testInvalidUtf8Refused);
  CPPUNIT_TEST(testWriterEscapes);
  CPPUNIT_TEST(testKeyOrderAndSet);
  CPPUNIT_TEST(testDuplicateKeysLastWins);
  CPPUNIT_TEST(testAccessors);
  CPPUNIT_TEST(testEraseAndPush);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testScalars() {
    CPPUNIT_ASSERT(Json::parse("null").isNull());
    CPPUNIT_ASSERT_EQUAL(true, Json::parse(" true ").asBool());
    CPPUNIT_ASSERT_EQUAL(false, Json::parse("\tfalse\r\n").asBool());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{-12}, Json::parse("-12").asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, Json::parse("-0").asInt());
    CPPUNIT_ASSERT_EQUAL(std::string("hi"), Json::parse("\"hi\"").asString());
    CPPUNIT_ASSERT_EQUAL(std::string("{}"), Json::parse("{ }").dump());
    CPPUNIT_ASSERT_EQUAL(std::string("[]"), Json::parse("[ ]").dump());
  }

  void testInt64Extremes() {
    const Json min = Json::parse("-9223372036854775808");
    CPPUNIT_ASSERT(min.isInt());
    CPPUNIT_ASSERT_EQUAL(std::numeric_limits<std::int64_t>::min(), min.asInt());
    CPPUNIT_ASSERT_EQUAL(std::string("-9223372036854775808"), min.dump());
    const Json max = Json::parse("9223372036854775807");
    CPPUNIT_ASSERT(max.isInt());
    CPPUNIT_ASSERT_EQUAL(std::numeric_limits<std::int64_t>::max(), max.asInt());
    // One past either end is no longer an exact integer.
    const Json above = Json::parse("9223372036854775808");
    CPPUNIT_ASSERT(above.type() == Json::Type::Double);
    CPPUNIT_ASSERT_EQUAL(9223372036854775808.0, above.asDouble());
    CPPUNIT_ASSERT(Json::parse("-9223372036854775809").type() == Json::Type::Double);
    // -2^53 - 1 is where doubles start losing integers (Poco's bug).
    CPPUNIT_ASSERT_EQUAL(std::int64_t{-9007199254740993}, Json::parse("-9007199254740993").asInt());
  }

  void testDoubles() {
    CPPUNIT_ASSERT(Json::parse("1.0").type() == Json::Type::Double);
    CPPUNIT_ASSERT(Json::parse("1e2").type() == Json::Type::Double);
    CPPUNIT_ASSERT_EQUAL(0.1, Json::parse("0.1").asDouble());
    CPPUNIT_ASSERT_EQUAL(-2.5e-3, Json::parse("-2.5E-3").asDouble());
    CPPUNIT_ASSERT_EQUAL(0.0, Json::parse("1e-400").asDouble());  // underflow reads as 0
    CPPUNIT_ASSERT(refused("1e400"));                             // overflow has no value
    CPPUNIT_ASSERT_EQUAL(std::string("0.1"), Json(0.1).dump());
    CPPUNIT_ASSERT_EQUAL(std::string("5.0"), Json(5.0).dump());
    CPPUNIT_ASSERT_EQUAL(std::string("1e+100"), Json(1e100).dump());
    CPPUNIT_ASSERT_EQUAL(std::string("null"), Json(std::nan("")).dump());
    CPPUNIT_ASSERT_EQUAL(std::string("null"), Json(std::numeric_limits<double>::infinity()).dump());
    CPPUNIT_ASSERT(Json::parse(Json(5.0).dump()).type() == Json::Type::Double);
  }

  void testRoundTrip() {
    const std::string text =
        R"({"b":1,"a":[true,false,null,-1.5,"x\"y"],"c":{"z":{},"y":[]},"d":"caf\u00e9"})";
    const Json parsed = Json::parse(text);
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"b":1,"a":[true,false,null,-1.5,"x\"y"],)"
                                     R"("c":{"z":{},"y":[]},"d":"café"})"),
                         parsed.dump());
    CPPUNIT_ASSERT(Json::parse(parsed.dump()) == parsed);
  }

  void testMalformedRefused() {
    const char* bad[] = {"",        " ",         "[1,]",      "{\"a\":1,}", "[,1]",
                         "01",      "-01",       "1.",        ".5",         "1e",
                         "+1",      "NaN",       "Infinity",  "-",          "tru",
                         "nul",     "[1 2]",     "{\"a\" 1}", "{a:1}",      "{'a':1}",
                         "\"abc",   "[1]x",      "1 2",       "// c\n1",    "/*c*/1",
                         "\"\\x\"", "\"\\u12\"", "[\"a\"]]",  "{\"a\":1",   "\xEF\xBB\xBF{}",
                         "\"\t\"",  "\"\n\"",    "\"\x01\"",  "{,}",        "[1,,2]"};
    for (const char* text : bad) {
      CPPUNIT_ASSERT_MESSAGE(std::string("accepted: ") + text, refused(text));
    }
  }

  void testErrorOffset() {
    try {
      Json::parse("{\"a\": [1, 2,]}");
      CPPUNIT_FAIL("trailing comma accepted");
    } catch (const JsonParseError& e) {
      CPPUNIT_ASSERT_EQUAL(std::size_t{12}, e.offset());
      CPPUNIT_ASSERT_EQUAL(std::string("Unexpected character at offset 12"), std::string(e.what()));
    }
    try {
      Json::parse("[1");
      CPPUNIT_FAIL("truncated array accepted");
    } catch (const JsonParseError& e) {
      CPPUNIT_ASSERT_EQUAL(std::string("Unexpected end of input at offset 2"),
                           std::string(e.what()));
    }
  }

  void testDepthLimit() {
    CPPUNIT_ASSERT_NO_THROW(Json::parse(nested(64)));
    CPPUNIT_ASSERT(refused(nested(65)));
    CPPUNIT_ASSERT(refused(nested(100000)));  // no stack overflow
    std::string objects;
    for (int i = 0; i < 65; ++i) objects += "{\"a\":";
    objects += "1" + std::string(65, '}');
    CPPUNIT_ASSERT(refused(objects));
  }

  void testEscapesParsed() {
    CPPUNIT_ASSERT_EQUAL(std::string("\"\\/\b\f\n\r\t"),
                         Json::parse(R"("\"\\\/\b\f\n\r\t")").asString());
    CPPUNIT_ASSERT_EQUAL(std::string("A\xC3\xA9\xE2\x82\xAC"),
                         Json::parse(R"("\u0041\u00E9\u20ac")").asString());
    CPPUNIT_ASSERT_EQUAL(std::string(1, '\0'), Json::parse(R"("\u0000")").asString());
    // Raw UTF-8 passes through unchanged.
    CPPUNIT_ASSERT_EQUAL(std::string("\xE6\x97\xA5\xF0\x9F\x98\x80"),
                         Json::parse("\"\xE6\x97\xA5\xF0\x9F\x98\x80\"").asString());
  }

  void testSurrogates() {
    CPPUNIT_ASSERT_EQUAL(std::string("\xF0\x9F\x98\x80"),
                         Json::parse(R"("\ud83d\ude00")").asString());
    CPPUNIT_ASSERT_EQUAL(std::string("\xF4\x8F\xBF\xBF"),
                         Json::parse(R"("\uDBFF\uDFFF")").asString());
    CPPUNIT_ASSERT(refused(R"("\ud83d")"));
    CPPUNIT_ASSERT(refused(R"("\ud83dx")"));
    CPPUNIT_ASSERT(refused(R"("\ude00")"));
    CPPUNIT_ASSERT(refused(R"("\ud83d\u0041")"));
  }

  void testInvalidUtf8Refused() {
    CPPUNIT_ASSERT(refused("\"\x80\""));              // stray continuation
    CPPUNIT_ASSERT(refused("\"\xC0\xAF\""));          // overlong '/'
    CPPUNIT_ASSERT(refused("\"\xED\xA0\x80\""));      // encoded surrogate
    CPPUNIT_ASSERT(refused("\"\xF4\x90\x80\x80\""));  // above U+10FFFF
    CPPUNIT_ASSERT(refused("\"\xE2\x82\""));          // truncated
  }

  void testWriterEscapes() {
    CPPUNIT_ASSERT_EQUAL(std::string(R"("a\"b\\c\n\t\r\b\f\u0001\u001f/")"),
                         Json("a\"b\\c\n\t\r\b\f\x01\x1f/").dump());
    CPPUNIT_ASSERT_EQUAL(std::string(R"("\u0000")"), Json(std::string(1, '\0')).dump());
    CPPUNIT_ASSERT_EQUAL(std::string("\"caf\xC3\xA9\""), Json("caf\xC3\xA9").dump());
    // Bytes that are not UTF-8 (from storage, say) still make valid JSON.
    CPPUNIT_ASSERT_EQUAL(std::string("\"a\xEF\xBF\xBD"
                                     "b\""),
                         Json("a\xFF"
                              "b")
                             .dump());
    const std::string nasty = "\x01\"\\\n\xF0\x9F\x98\x80 end";
    CPPUNIT_ASSERT_EQUAL(nasty, Json::parse(Json(nasty).dump()).asString());
  }

  void testKeyOrderAndSet() {
    Json object = Json::object({{"z", 1}, {"a", 2}, {"m", 3}});
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"z":1,"a":2,"m":3})"), object.dump());
    object.set("a", "two").set("b", true);
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"z":1,"a":"two","m":3,"b":true})"), object.dump());
    CPPUNIT_ASSERT_EQUAL(std::size_t{4}, object.size());
    Json null;
    null.set("k", nullptr);
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"k":null})"), null.dump());
    CPPUNIT_ASSERT_THROW(Json(1).set("k", 2), std::logic_error);
  }

  void testDuplicateKeysLastWins() {
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"a":3,"b":2})"),
                         Json::parse(R"({"a":1,"b":2,"a":3})").dump());
    // Past the hash-index threshold too.
    std::string text = "{";
    for (int i = 0; i < 40; ++i)
      text += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
    text += "\"k3\":99}";
    const Json parsed = Json::parse(text);
    CPPUNIT_ASSERT_EQUAL(std::size_t{40}, parsed.size());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{99}, parsed["k3"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::string("k3"), parsed.asObject()[3].first);
  }

  void testAccessors() {
    const Json object = Json::parse(R"({"s":"x","i":1,"d":1.5})");
    CPPUNIT_ASSERT(object["missing"].isNull());
    CPPUNIT_ASSERT(Json(1)["x"].isNull());
    CPPUNIT_ASSERT(object.find("missing") == nullptr);
    CPPUNIT_ASSERT(object.contains("s"));
    CPPUNIT_ASSERT_EQUAL(1.0, object["i"].asDouble());
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, Json("abc").size());
    try {
      object["i"].asString();
      CPPUNIT_FAIL("asString on an integer");
    } catch (const std::logic_error& e) {
      CPPUNIT_ASSERT_EQUAL(std::string("Json: not a string"), std::string(e.what()));
    }
    CPPUNIT_ASSERT_THROW(object["d"].asInt(), std::logic_error);
    CPPUNIT_ASSERT_THROW(object["s"].asDouble(), std::logic_error);
    CPPUNIT_ASSERT_THROW(object["s"].asBool(), std::logic_error);
    CPPUNIT_ASSERT_THROW(object.asArray(), std::logic_error);
    CPPUNIT_ASSERT_THROW(Json().asObject(), std::logic_error);
  }

  void testEraseAndPush() {
    Json object = Json::object({{"a", 1}, {"b", 2}, {"c", 3}});
    object.erase("b");
    object.erase("nope");
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"a":1,"c":3})"), object.dump());
    Json array;
    array.push(1).push("two").push(Json::array());
    CPPUNIT_ASSERT_EQUAL(std::string(R"([1,"two",[]])"), array.dump());
    CPPUNIT_ASSERT_THROW(Json("s").push(1), std::logic_error);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(JsonTest);
