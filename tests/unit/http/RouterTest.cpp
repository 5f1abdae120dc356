// Router: parameters, literal-over-parameter precedence, 404 versus 405 with
// the Allow list, duplicate refusal, strict trailing slashes.
#include <cppunit/extensions/HelperMacros.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "http/Router.h"

using rapport::Request;
using rapport::Response;
using rapport::host::RouteMatch;
using rapport::host::Router;

namespace {

rapport::Handler answer(const std::string& text) {
  return [text](const Request&) { return Response::messageOnly(text); };
}

std::string invoke(const RouteMatch& match) {
  return match.route->handler(Request{}).message;
}

}  // namespace

class RouterTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(RouterTest);
  CPPUNIT_TEST(testLiteralRoutes);
  CPPUNIT_TEST(testParams);
  CPPUNIT_TEST(testLiteralBeatsParam);
  CPPUNIT_TEST(testBacktracksToParam);
  CPPUNIT_TEST(testNotFound);
  CPPUNIT_TEST(testMethodNotAllowed);
  CPPUNIT_TEST(testTrailingSlash);
  CPPUNIT_TEST(testDuplicateRefused);
  CPPUNIT_TEST(testMalformedPatternsRefused);
  CPPUNIT_TEST(testOwnerAndOptions);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override {
    router_ = std::make_unique<Router>();
    add("GET", "/healthz", "health");
    add("GET", "/v1/crm/contacts", "list");
    add("POST", "/v1/crm/contacts", "create");
    add("GET", "/v1/crm/contacts/{id}", "read");
    add("PATCH", "/v1/crm/contacts/{id}", "update");
    add("DELETE", "/v1/crm/contacts/{id}", "delete");
    add("GET", "/v1/crm/pipelines/{id}/stages/{stage_id}", "stage");
    add("PATCH", "/v1/crm/pipelines/{id}/stages/{stage_id}", "stage-update");
    add("PATCH", "/v1/crm/pipelines/{id}/stages/reorder", "reorder");
    add("GET", "/v1/a/b/c", "abc");
    add("GET", "/v1/a/{x}/d", "axd");
  }

  void testLiteralRoutes() {
    const RouteMatch m = router_->match("GET", "/healthz");
    CPPUNIT_ASSERT(m.kind == RouteMatch::Kind::Found);
    CPPUNIT_ASSERT_EQUAL(std::string("health"), invoke(m));
    CPPUNIT_ASSERT(m.params.empty());
    CPPUNIT_ASSERT_EQUAL(std::string("create"), invoke(router_->match("POST", "/v1/crm/contacts")));
    CPPUNIT_ASSERT_EQUAL(std::size_t{11}, router_->size());
  }

  void testParams() {
    const RouteMatch m = router_->match("GET", "/v1/crm/pipelines/pipe_1/stages/stg_2");
    CPPUNIT_ASSERT(m.kind == RouteMatch::Kind::Found);
    CPPUNIT_ASSERT_EQUAL(std::string("stage"), invoke(m));
    CPPUNIT_ASSERT_EQUAL(std::string("pipe_1"), m.params.at("id"));
    CPPUNIT_ASSERT_EQUAL(std::string("stg_2"), m.params.at("stage_id"));
    // Values are percent-decoded; '+' is not a space in a path.
    const RouteMatch d = router_->match("GET", "/v1/crm/contacts/a%20b+c");
    CPPUNIT_ASSERT_EQUAL(std::string("a b+c"), d.params.at("id"));
  }

  void testLiteralBeatsParam() {
    const RouteMatch m = router_->match("PATCH", "/v1/crm/pipelines/pipe_1/stages/reorder");
    CPPUNIT_ASSERT_EQUAL(std::string("reorder"), invoke(m));
    CPPUNIT_ASSERT_EQUAL(std::string("pipe_1"), m.params.at("id"));
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, m.params.size());
    // The literal route has no GET: the parameter route serves it.
    const RouteMatch g = router_->match("GET", "/v1/crm/pipelines/pipe_1/stages/reorder");
    CPPUNIT_ASSERT_EQUAL(std::string("stage"), invoke(g));
    CPPUNIT_ASSERT_EQUAL(std::string("reorder"), g.params.at("stage_id"));
  }

  void testBacktracksToParam() {
    // "b" matches the literal child, but only the parameter branch has "d".
    const RouteMatch m = router_->match("GET", "/v1/a/b/d");
    CPPUNIT_ASSERT_EQUAL(std::string("axd"), invoke(m));
    CPPUNIT_ASSERT_EQUAL(std::string("b"), m.params.at("x"));
    CPPUNIT_ASSERT_EQUAL(std::string("abc"), invoke(router_->match("GET", "/v1/a/b/c")));
  }

  void testNotFound() {
    CPPUNIT_ASSERT(router_->match("GET", "/v1/crm/nothing").kind == RouteMatch::Kind::NotFound);
    CPPUNIT_ASSERT(router_->match("GET", "/v9/crm/contacts").kind == RouteMatch::Kind::NotFound);
    CPPUNIT_ASSERT(router_->match("GET", "").kind == RouteMatch::Kind::NotFound);
    CPPUNIT_ASSERT(router_->match("GET", "healthz").kind == RouteMatch::Kind::NotFound);
    CPPUNIT_ASSERT(router_->match("GET", "/v1/crm/contacts/a/b/c").kind ==
                   RouteMatch::Kind::NotFound);
  }

  void testMethodNotAllowed() {
    const RouteMatch m = router_->match("PUT", "/v1/crm/contacts/cont_1");
    CPPUNIT_ASSERT(m.kind == RouteMatch::Kind::MethodNotAllowed);
    CPPUNIT_ASSERT(m.route == nullptr);
    const std::vector<std::string> expected{"DELETE", "GET", "PATCH"};
    CPPUNIT_ASSERT(expected == m.allowed);
    // HEAD is not implied by GET.
    CPPUNIT_ASSERT(router_->match("HEAD", "/healthz").kind == RouteMatch::Kind::MethodNotAllowed);
    // Allow gathers every pattern the path matched.
    const RouteMatch r = router_->match("POST", "/v1/crm/pipelines/p/stages/reorder");
    const std::vector<std::string> both{"GET", "PATCH"};
    CPPUNIT_ASSERT(both == r.allowed);
  }

  void testTrailingSlash() {
    CPPUNIT_ASSERT(router_->match("GET", "/v1/crm/contacts/").kind == RouteMatch::Kind::NotFound);
    CPPUNIT_ASSERT(router_->match("GET", "/healthz/").kind == RouteMatch::Kind::NotFound);
    CPPUNIT_ASSERT(router_->match("GET", "/v1/crm//contacts").kind == RouteMatch::Kind::NotFound);
  }

  void testDuplicateRefused() {
    try {
      router_->add("GET", "/v1/crm/contacts/{contact}", answer("again"), {}, "deals");
      CPPUNIT_FAIL("duplicate route accepted");
    } catch (const std::logic_error& e) {
      const std::string what = e.what();
      CPPUNIT_ASSERT(what.find("'deals'") != std::string::npos);
      CPPUNIT_ASSERT(what.find("'contacts'") != std::string::npos);
      CPPUNIT_ASSERT(what.find("/v1/crm/contacts/{id}") != std::string::npos);
    }
    // Another method on the same pattern is fine.
    router_->add("PUT", "/v1/crm/contacts/{contact}", answer("put"), {}, "deals");
    const RouteMatch m = router_->match("PUT", "/v1/crm/contacts/c1");
    CPPUNIT_ASSERT_EQUAL(std::string("c1"), m.params.at("contact"));
  }

  void testMalformedPatternsRefused() {
    CPPUNIT_ASSERT_THROW(router_->add("GET", "v1/x", answer(""), {}, "t"), std::logic_error);
    CPPUNIT_ASSERT_THROW(router_->add("GET", "/v1/x/", answer(""), {}, "t"), std::logic_error);
    CPPUNIT_ASSERT_THROW(router_->add("GET", "/v1//x", answer(""), {}, "t"), std::logic_error);
    CPPUNIT_ASSERT_THROW(router_->add("GET", "/v1/{}", answer(""), {}, "t"), std::logic_error);
    CPPUNIT_ASSERT_THROW(router_->add("GET", "/v1/a{id}", answer(""), {}, "t"), std::logic_error);
    CPPUNIT_ASSERT_THROW(router_->add("GET", "/v1/{id}/{id}", answer(""), {}, "t"),
                         std::logic_error);
    CPPUNIT_ASSERT_THROW(router_->add("get", "/v1/x", answer(""), {}, "t"), std::logic_error);
    CPPUNIT_ASSERT_THROW(router_->add("GET", "/v1/x", rapport::Handler{}, {}, "t"),
                         std::logic_error);
  }

  void testOwnerAndOptions() {
    rapport::RouteOptions options;
    options.access = rapport::Access::Public;
    options.roles = {rapport::Role::Owner};
    router_->add("POST", "/v1/things/{id}/go", answer("go"), options, "things");
    const RouteMatch m = router_->match("POST", "/v1/things/t1/go");
    CPPUNIT_ASSERT_EQUAL(std::string("things"), m.route->owner);
    CPPUNIT_ASSERT_EQUAL(std::string("/v1/things/{id}/go"), m.route->pattern);
    CPPUNIT_ASSERT(m.route->options.access == rapport::Access::Public);
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, m.route->options.roles.size());
  }

 private:
  void add(const std::string& method, const std::string& pattern, const std::string& text) {
    router_->add(method, pattern, answer(text), {}, "contacts");
  }

  std::unique_ptr<Router> router_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(RouterTest);
