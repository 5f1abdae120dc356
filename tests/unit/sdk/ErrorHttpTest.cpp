// rapport::Error factories, Request helpers, Response factories and roles.
#include <cppunit/extensions/HelperMacros.h>

#include "rapport/error.h"
#include "rapport/http.h"
#include "rapport/roles.h"

using rapport::Error;
using rapport::Json;
using rapport::Request;
using rapport::Response;
using rapport::Role;

class ErrorHttpTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ErrorHttpTest);
  CPPUNIT_TEST(testGenericMessages);
  CPPUNIT_TEST(testFactories);
  CPPUNIT_TEST(testValidationMessage);
  CPPUNIT_TEST(testTooManyRequests);
  CPPUNIT_TEST(testHeadersCaseInsensitive);
  CPPUNIT_TEST(testRequestLookups);
  CPPUNIT_TEST(testRequireRole);
  CPPUNIT_TEST(testBodyObject);
  CPPUNIT_TEST(testResponses);
  CPPUNIT_TEST(testRoles);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testGenericMessages() {
    CPPUNIT_ASSERT_EQUAL(std::string("Malformed request."), Error::genericMessage(400));
    CPPUNIT_ASSERT_EQUAL(std::string("Not authenticated."), Error::genericMessage(401));
    CPPUNIT_ASSERT_EQUAL(std::string("No permission."), Error::genericMessage(403));
    CPPUNIT_ASSERT_EQUAL(std::string("Record not found."), Error::genericMessage(404));
    CPPUNIT_ASSERT_EQUAL(std::string("Method not allowed."), Error::genericMessage(405));
    CPPUNIT_ASSERT_EQUAL(std::string("Duplicate value."), Error::genericMessage(409));
    CPPUNIT_ASSERT_EQUAL(std::string("Gone."), Error::genericMessage(410));
    CPPUNIT_ASSERT_EQUAL(std::string("Length required."), Error::genericMessage(411));
    CPPUNIT_ASSERT_EQUAL(std::string("Payload too large."), Error::genericMessage(413));
    CPPUNIT_ASSERT_EQUAL(std::string("Unsupported media type."), Error::genericMessage(415));
    CPPUNIT_ASSERT_EQUAL(std::string("Invalid data."), Error::genericMessage(422));
    CPPUNIT_ASSERT_EQUAL(std::string("Too many requests."), Error::genericMessage(429));
    CPPUNIT_ASSERT_EQUAL(std::string("Internal error."), Error::genericMessage(500));
    CPPUNIT_ASSERT_EQUAL(std::string("Service unavailable."), Error::genericMessage(503));
    CPPUNIT_ASSERT_EQUAL(std::string("Error."), Error::genericMessage(418));
  }

  void testFactories() {
    CPPUNIT_ASSERT_EQUAL(400, Error::badRequest().status());
    CPPUNIT_ASSERT_EQUAL(401, Error::unauthorized().status());
    CPPUNIT_ASSERT_EQUAL(403, Error::forbidden().status());
    CPPUNIT_ASSERT_EQUAL(409, Error::conflict().status());
    CPPUNIT_ASSERT_EQUAL(410, Error::gone().status());
    const Error notFound = Error::notFound("Pipeline not found.");
    CPPUNIT_ASSERT_EQUAL(404, notFound.status());
    CPPUNIT_ASSERT_EQUAL(std::string("Pipeline not found."), std::string(notFound.what()));
    CPPUNIT_ASSERT_EQUAL(std::string("Record not found."), std::string(Error::notFound().what()));
    CPPUNIT_ASSERT(notFound.errors().empty());
  }

  void testValidationMessage() {
    const Error first =
        Error::validation({{"name", {"The name field is required."}},
                           {"email", {"The email must be a valid email address."}}});
    CPPUNIT_ASSERT_EQUAL(422, first.status());
    // Fields are ordered by name: "email" comes first.
    CPPUNIT_ASSERT_EQUAL(std::string("The email must be a valid email address."),
                         std::string(first.what()));
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, first.errors().size());
    CPPUNIT_ASSERT_EQUAL(std::string("Custom."),
                         std::string(Error::validation({{"a", {"x"}}}, "Custom.").what()));
    CPPUNIT_ASSERT_EQUAL(std::string("Invalid data."), std::string(Error::validation({}).what()));
    const Error single = Error::invalidField("sort", "The sort field is not supported.");
    CPPUNIT_ASSERT_EQUAL(422, single.status());
    CPPUNIT_ASSERT_EQUAL(std::string("The sort field is not supported."),
                         single.errors().at("sort").at(0));
    CPPUNIT_ASSERT_EQUAL(std::string("The sort field is not supported."),
                         std::string(single.what()));
  }

  void testTooManyRequests() {
    const Error error = Error::tooManyRequests(30);
    CPPUNIT_ASSERT_EQUAL(429, error.status());
    CPPUNIT_ASSERT_EQUAL(std::string("Too many requests."), std::string(error.what()));
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, error.headers().size());
    CPPUNIT_ASSERT_EQUAL(std::string("Retry-After"), error.headers()[0].first);
    CPPUNIT_ASSERT_EQUAL(std::string("30"), error.headers()[0].second);
    CPPUNIT_ASSERT_EQUAL(std::string("1"), Error::tooManyRequests(0).headers()[0].second);
    CPPUNIT_ASSERT_EQUAL(std::string("1"), Error::tooManyRequests(-5).headers()[0].second);
  }

  void testHeadersCaseInsensitive() {
    rapport::HeaderNameLess less;
    CPPUNIT_ASSERT(!less("Content-Type", "content-type"));
    CPPUNIT_ASSERT(!less("content-type", "CONTENT-TYPE"));
    CPPUNIT_ASSERT(less("Accept", "content-type"));
    CPPUNIT_ASSERT(less("a", "AB"));
    Request request;
    request.headers["X-Request-Id"] = "abc";
    request.headers["x-request-id"] = "def";  // same header
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, request.headers.size());
    CPPUNIT_ASSERT_EQUAL(std::string("def"), *request.header("X-REQUEST-ID"));
    CPPUNIT_ASSERT(!request.header("Authorization"));
  }

  void testRequestLookups() {
    Request request;
    request.pathParams["id"] = "cont_1";
    request.query["page"] = "2";
    CPPUNIT_ASSERT_EQUAL(std::string("cont_1"), request.param("id"));
    CPPUNIT_ASSERT_THROW(request.param("other"), std::logic_error);
    CPPUNIT_ASSERT_EQUAL(std::string("2"), *request.queryParam("page"));
    CPPUNIT_ASSERT(!request.queryParam("per_page"));
  }

  void testRequireRole() {
    Request request;
    CPPUNIT_ASSERT_EQUAL(401, statusOf(request, {Role::Member}));  // anonymous
    request.identity.authenticated = true;
    request.identity.role = Role::Member;
    CPPUNIT_ASSERT_EQUAL(403, statusOf(request, {Role::Owner, Role::Admin}));
    CPPUNIT_ASSERT_EQUAL(0, statusOf(request, {Role::Member}));
    request.identity.role = Role::Admin;
    CPPUNIT_ASSERT_EQUAL(0, statusOf(request, {Role::Owner, Role::Admin}));
    CPPUNIT_ASSERT_EQUAL(403, statusOf(request, {Role::Owner}));
  }

  void testBodyObject() {
    Request request;
    CPPUNIT_ASSERT(request.bodyObject().isObject());
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, request.bodyObject().size());
    request.body = Json::array();
    CPPUNIT_ASSERT(request.bodyObject().isObject());
    request.body = Json::object({{"a", 1}});
    CPPUNIT_ASSERT(&request.bodyObject() == &request.body);
  }

  void testResponses() {
    const Response ok = Response::ok(Json::object({{"id", "x"}}));
    CPPUNIT_ASSERT_EQUAL(200, ok.status);
    CPPUNIT_ASSERT_EQUAL(std::string("OK."), ok.message);
    CPPUNIT_ASSERT(ok.data && !ok.meta);
    const Response created = Response::created(Json::object(), "Contact created.");
    CPPUNIT_ASSERT_EQUAL(201, created.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Contact created."), created.message);
    const Response list = Response::list(Json::array(), Json::object({{"total", 0}}));
    CPPUNIT_ASSERT_EQUAL(200, list.status);
    CPPUNIT_ASSERT(list.data && list.meta);
    Response deleted = Response::messageOnly("Deleted.");
    CPPUNIT_ASSERT_EQUAL(200, deleted.status);
    CPPUNIT_ASSERT(!deleted.data && !deleted.meta);
    CPPUNIT_ASSERT_EQUAL(202, Response::messageOnly("Queued.", 202).status);
    deleted.withHeader("Deprecation", "true").withHeader("Link", "<x>");
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, deleted.headers.size());
  }

  void testRoles() {
    CPPUNIT_ASSERT_EQUAL(std::string("owner"), std::string(rapport::roleName(Role::Owner)));
    CPPUNIT_ASSERT_EQUAL(std::string("admin"), std::string(rapport::roleName(Role::Admin)));
    CPPUNIT_ASSERT_EQUAL(std::string("member"), std::string(rapport::roleName(Role::Member)));
    CPPUNIT_ASSERT(rapport::parseRole("admin") == Role::Admin);
    CPPUNIT_ASSERT(rapport::parseRole("owner") == Role::Owner);
    CPPUNIT_ASSERT(rapport::parseRole("member") == Role::Member);
    CPPUNIT_ASSERT(!rapport::parseRole("Admin"));
    CPPUNIT_ASSERT(!rapport::parseRole(""));
  }

 private:
  // 0 when allowed, else the status of the Error thrown.
  static int statusOf(const Request& request, std::initializer_list<Role> roles) {
    try {
      request.requireRole(roles);
      return 0;
    } catch (const Error& e) {
      return e.status();
    }
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ErrorHttpTest);
