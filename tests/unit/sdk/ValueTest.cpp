// rapport::Value conversions and rapport::Row access.
#include <cppunit/extensions/HelperMacros.h>

#include <limits>

#include "rapport/db.h"

using rapport::Json;
using rapport::Row;
using rapport::Value;

class ValueTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ValueTest);
  CPPUNIT_TEST(testAsString);
  CPPUNIT_TEST(testAsInt);
  CPPUNIT_TEST(testAsBool);
  CPPUNIT_TEST(testAsDouble);
  CPPUNIT_TEST(testOptionalAndJson);
  CPPUNIT_TEST(testRow);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testAsString() {
    CPPUNIT_ASSERT_EQUAL(std::string("42"), Value(42).asString());
    CPPUNIT_ASSERT_EQUAL(std::string("-9223372036854775808"),
                         Value(std::numeric_limits<long long>::min()).asString());
    CPPUNIT_ASSERT_EQUAL(std::string("1.5"), Value(1.5).asString());
    CPPUNIT_ASSERT_EQUAL(std::string("true"), Value(true).asString());
    CPPUNIT_ASSERT_EQUAL(std::string("false"), Value(false).asString());
    CPPUNIT_ASSERT_EQUAL(std::string("x"), Value("x").asString());
    CPPUNIT_ASSERT_THROW(Value().asString(), std::logic_error);
  }

  void testAsInt() {
    CPPUNIT_ASSERT_EQUAL(std::int64_t{7}, Value(7).asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, Value(true).asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, Value(false).asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{-12}, Value("-12").asInt());
    CPPUNIT_ASSERT_EQUAL(std::numeric_limits<std::int64_t>::min(),
                         Value("-9223372036854775808").asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3}, Value(3.0).asInt());
    CPPUNIT_ASSERT_THROW(Value(3.5).asInt(), std::logic_error);
    CPPUNIT_ASSERT_THROW(Value(1e19).asInt(), std::logic_error);
    CPPUNIT_ASSERT_THROW(Value("12abc").asInt(), std::logic_error);
    CPPUNIT_ASSERT_THROW(Value(" 12").asInt(), std::logic_error);
    CPPUNIT_ASSERT_THROW(Value("").asInt(), std::logic_error);
    CPPUNIT_ASSERT_THROW(Value("9223372036854775808").asInt(), std::logic_error);
    CPPUNIT_ASSERT_THROW(Value().asInt(), std::logic_error);
  }

  void testAsBool() {
    CPPUNIT_ASSERT(Value(true).asBool());
    CPPUNIT_ASSERT(Value(1).asBool());
    CPPUNIT_ASSERT(!Value(0).asBool());
    CPPUNIT_ASSERT(Value("t").asBool());
    CPPUNIT_ASSERT(Value("true").asBool());
    CPPUNIT_ASSERT(Value("1").asBool());
    CPPUNIT_ASSERT(!Value("f").asBool());
    CPPUNIT_ASSERT(!Value("false").asBool());
    CPPUNIT_ASSERT(!Value("0").asBool());
    CPPUNIT_ASSERT_THROW(Value("yes").asBool(), std::logic_error);
  }

  void testAsDouble() {
    CPPUNIT_ASSERT_EQUAL(2.0, Value(2).asDouble());
    CPPUNIT_ASSERT_EQUAL(2.25, Value("2.25").asDouble());
    CPPUNIT_ASSERT_THROW(Value("2.25x").asDouble(), std::logic_error);
  }

  void testOptionalAndJson() {
    CPPUNIT_ASSERT(Value(std::optional<std::string>()).isNull());
    CPPUNIT_ASSERT_EQUAL(std::string("a"), Value(std::optional<std::string>("a")).asString());
    CPPUNIT_ASSERT(Value().toJson().isNull());
    CPPUNIT_ASSERT(Value(5).toJson() == Json(5));
    CPPUNIT_ASSERT(Value(true).toJson() == Json(true));
    CPPUNIT_ASSERT(Value(0.5).toJson() == Json(0.5));
    CPPUNIT_ASSERT(Value("s").toJson() == Json("s"));
  }

  void testRow() {
    auto columns = std::make_shared<const std::vector<std::string>>(
        std::vector<std::string>{"id", "name", "count", "archived", "pg_flag", "missing"});
    const Row row(columns,
                  {Value("cont_1"), Value("Ann"), Value(3), Value(1), Value("f"), Value()});
    CPPUNIT_ASSERT_EQUAL(std::size_t{6}, row.size());
    CPPUNIT_ASSERT_EQUAL(std::string("Ann"), row.str("name"));
    CPPUNIT_ASSERT_EQUAL(std::string("3"), row.str("count"));
    CPPUNIT_ASSERT_EQUAL(std::string(""), row.str("missing"));
    CPPUNIT_ASSERT(!row.optStr("missing"));
    CPPUNIT_ASSERT_EQUAL(std::string("cont_1"), *row.optStr("id"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3}, row.i64("count"));
    CPPUNIT_ASSERT_THROW(row.i64("missing"), std::logic_error);
    CPPUNIT_ASSERT(!row.optI64("missing"));
    CPPUNIT_ASSERT(row.flag("archived"));
    CPPUNIT_ASSERT(!row.flag("pg_flag"));
    CPPUNIT_ASSERT(row.isNull("missing"));
    CPPUNIT_ASSERT_EQUAL(std::string("Ann"), row.at(1).asString());
    try {
      row["nope"];
      CPPUNIT_FAIL("unknown column accepted");
    } catch (const std::logic_error& e) {
      CPPUNIT_ASSERT_EQUAL(std::string("unknown column nope"), std::string(e.what()));
    }
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ValueTest);
