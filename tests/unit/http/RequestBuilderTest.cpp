// buildRequest: what a handler can rely on before it runs. Path and query
// values are UTF-8 text without NUL (PostgreSQL refuses anything else as
// bound text): a path parameter that is not answers 404, a query value 422
// naming its parameter, so no module ever meets one.
#include <cppunit/extensions/HelperMacros.h>

#include "http/RequestBuilder.h"
#include "rapport/error.h"

using rapport::host::buildRequest;
using rapport::host::RawRequest;
using rapport::host::RouteMatch;

namespace {

RawRequest rawGet(const std::string& query) {
  RawRequest raw;
  raw.method = "GET";
  raw.path = "/v1/crm/contacts";
  raw.query = query;
  return raw;
}

RouteMatch matchWith(std::map<std::string, std::string> params) {
  RouteMatch match;
  match.kind = RouteMatch::Kind::Found;
  match.params = std::move(params);
  return match;
}

// The status buildRequest refuses with, or 0 when it builds the request.
int statusOf(const RawRequest& raw, std::map<std::string, std::string> params = {}) {
  try {
    buildRequest(raw, matchWith(std::move(params)), "req", std::nullopt);
    return 0;
  } catch (const rapport::Error& e) {
    return e.status();
  }
}

}  // namespace

class RequestBuilderTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(RequestBuilderTest);
  CPPUNIT_TEST(testValidTextPasses);
  CPPUNIT_TEST(testPathParameterThatIsNotUtf8Is404);
  CPPUNIT_TEST(testQueryValueThatIsNotUtf8Is422NamingIt);
  CPPUNIT_TEST(testNulInAQueryValueIs422);
  CPPUNIT_TEST(testQueryNameThatIsNotUtf8Is400);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testValidTextPasses() {
    const rapport::Request request =
        buildRequest(rawGet("search=J%C3%BCrgen&tag=%E2%9C%93"),
                     matchWith({{"id", "cont_\xC3\xA9"}}), "req", std::nullopt);
    CPPUNIT_ASSERT_EQUAL(std::string("J\xC3\xBCrgen"), *request.queryParam("search"));
    CPPUNIT_ASSERT_EQUAL(std::string("cont_\xC3\xA9"), request.param("id"));
  }

  void testPathParameterThatIsNotUtf8Is404() {
    CPPUNIT_ASSERT_EQUAL(404, statusOf(rawGet(""), {{"id", "cont_\xFF"}}));
    CPPUNIT_ASSERT_EQUAL(404, statusOf(rawGet(""), {{"id", "cont_\xC3\x28"}}));
    CPPUNIT_ASSERT_EQUAL(404, statusOf(rawGet(""), {{"id", std::string("cont_\0x", 7)}}));
  }

  void testQueryValueThatIsNotUtf8Is422NamingIt() {
    for (const char* query : {"search=%ff%fe", "tag=%ff", "industry=%c3%28", "q=%ed%a0%80"}) {
      try {
        buildRequest(rawGet(query), matchWith({}), "req", std::nullopt);
        CPPUNIT_FAIL(std::string("accepted ") + query);
      } catch (const rapport::Error& e) {
        CPPUNIT_ASSERT_EQUAL_MESSAGE(query, 422, e.status());
        const std::string name = std::string(query).substr(0, std::string(query).find('='));
        CPPUNIT_ASSERT_MESSAGE(query, e.errors().count(name) == 1);
      }
    }
  }

  void testNulInAQueryValueIs422() { CPPUNIT_ASSERT_EQUAL(422, statusOf(rawGet("search=a%00b"))); }

  void testQueryNameThatIsNotUtf8Is400() { CPPUNIT_ASSERT_EQUAL(400, statusOf(rawGet("%ff=1"))); }
};

CPPUNIT_TEST_SUITE_REGISTRATION(RequestBuilderTest);
