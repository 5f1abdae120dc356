// rapport::parsePage, pageMeta, parseSort and orderByClause.
#include <cppunit/extensions/HelperMacros.h>

#include "rapport/error.h"
#include "rapport/pagination.h"

using rapport::Error;
using rapport::Json;
using rapport::PageRequest;
using rapport::Request;
using rapport::Sort;

namespace {

Request withQuery(std::map<std::string, std::string> query) {
  Request request;
  request.query = std::move(query);
  return request;
}

// The 422 errors of parsePage, or an empty map when it succeeded.
rapport::FieldErrors pageErrors(std::map<std::string, std::string> query) {
  try {
    rapport::parsePage(withQuery(std::move(query)));
    return {};
  } catch (const Error& e) {
    CPPUNIT_ASSERT_EQUAL(422, e.status());
    return e.errors();
  }
}

const std::map<std::string, std::string> kAllowed{{"name", "name"}, {"created_at", "created_at"}};

}  // namespace

class PaginationTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(PaginationTest);
  CPPUNIT_TEST(testDefaults);
  CPPUNIT_TEST(testValidValues);
  CPPUNIT_TEST(testBadPage);
  CPPUNIT_TEST(testBadPerPage);
  CPPUNIT_TEST(testBothBad);
  CPPUNIT_TEST(testMeta);
  CPPUNIT_TEST(testSort);
  CPPUNIT_TEST(testOrderBy);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testDefaults() {
    const PageRequest page = rapport::parsePage(Request());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, page.page);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{20}, page.perPage);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, page.offset());
  }

  void testValidValues() {
    const PageRequest page = rapport::parsePage(withQuery({{"page", "3"}, {"per_page", "100"}}));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3}, page.page);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{100}, page.perPage);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{200}, page.offset());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1},
                         rapport::parsePage(withQuery({{"per_page", "1"}})).perPage);
  }

  void testBadPage() {
    for (const char* text : {"0", "-1", "abc", "1.5", "", "+1", " 1", "1e3",
                             "99999999999999999999999", "9223372036854775807"}) {
      const auto errors = pageErrors({{"page", text}});
      CPPUNIT_ASSERT_EQUAL_MESSAGE(text, std::size_t{1}, errors.size());
      CPPUNIT_ASSERT_EQUAL(std::string("The page must be an integer of at least 1."),
                           errors.at("page").at(0));
    }
  }

  void testBadPerPage() {
    for (const char* text : {"0", "101", "-5", "x", "", "20.0", "18446744073709551617"}) {
      const auto errors = pageErrors({{"per_page", text}});
      CPPUNIT_ASSERT_EQUAL_MESSAGE(text, std::size_t{1}, errors.size());
      CPPUNIT_ASSERT_EQUAL(std::string("The per_page must be an integer between 1 and 100."),
                           errors.at("per_page").at(0));
    }
  }

  void testBothBad() {
    try {
      rapport::parsePage(withQuery({{"page", "0"}, {"per_page", "0"}}));
      CPPUNIT_FAIL("accepted");
    } catch (const Error& e) {
      CPPUNIT_ASSERT_EQUAL(std::size_t{2}, e.errors().size());
      CPPUNIT_ASSERT_EQUAL(std::string("The page must be an integer of at least 1."),
                           std::string(e.what()));
    }
  }

  void testMeta() {
    CPPUNIT_ASSERT_EQUAL(std::string(R"({"current_page":1,"per_page":20,"total":0,"last_page":1})"),
                         rapport::pageMeta({1, 20}, 0).dump());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, rapport::pageMeta({1, 20}, 20)["last_page"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, rapport::pageMeta({1, 20}, 21)["last_page"].asInt());
    const Json past = rapport::pageMeta({9, 10}, 35);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{9}, past["current_page"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{4}, past["last_page"].asInt());
  }

  void testSort() {
    const Sort fallback{"created_at", true};
    const Sort absent = rapport::parseSort(Request(), kAllowed, fallback);
    CPPUNIT_ASSERT_EQUAL(std::string("created_at"), absent.column);
    CPPUNIT_ASSERT(absent.descending);
    const Sort asc = rapport::parseSort(withQuery({{"sort", "name"}}), kAllowed, fallback);
    CPPUNIT_ASSERT_EQUAL(std::string("name"), asc.column);
    CPPUNIT_ASSERT(!asc.descending);
    const Sort desc = rapport::parseSort(withQuery({{"sort", "-name"}}), kAllowed, fallback);
    CPPUNIT_ASSERT(desc.descending);
    for (const char* text : {"email", "", "-", "--name", "name;DROP TABLE x", "+name"}) {
      try {
        rapport::parseSort(withQuery({{"sort", text}}), kAllowed, fallback);
        CPPUNIT_FAIL(std::string("accepted sort ") + text);
      } catch (const Error& e) {
        CPPUNIT_ASSERT_EQUAL(422, e.status());
        CPPUNIT_ASSERT_EQUAL(std::string("The sort field is not supported."),
                             e.errors().at("sort").at(0));
      }
    }
  }

  void testOrderBy() {
    CPPUNIT_ASSERT_EQUAL(std::string("ORDER BY name ASC, id ASC"),
                         rapport::orderByClause({"name", false}));
    CPPUNIT_ASSERT_EQUAL(std::string("ORDER BY created_at DESC, id DESC"),
                         rapport::orderByClause({"created_at", true}));
    CPPUNIT_ASSERT_EQUAL(std::string("ORDER BY id DESC"), rapport::orderByClause({"id", true}));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(PaginationTest);
