// planBody: framing decided from the headers (RFC 9112 §6), ambiguous
// framing refused. Reading what the plan says is RequestReaderTest's and
// ChunkedDecoderTest's.
#include <cppunit/extensions/HelperMacros.h>

#include <string>

#include "http/BodyPlan.h"

using rapport::host::BodyPlan;
using rapport::host::planBody;
using rapport::host::ReadState;
using rapport::host::RequestHead;

namespace {

constexpr std::size_t kMax = 100;

RequestHead head(const std::string& method, rapport::Headers headers, int minorVersion = 1) {
  RequestHead out;
  out.method = method;
  out.target = "/";
  out.minorVersion = minorVersion;
  out.headers = std::move(headers);
  return out;
}

ReadState refusalOf(const RequestHead& request) {
  const BodyPlan plan = planBody(request, kMax);
  CPPUNIT_ASSERT(plan.kind == BodyPlan::Kind::Refused);
  CPPUNIT_ASSERT(!plan.readsBytes());
  return plan.refusal;
}

}  // namespace

class BodyPlanTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(BodyPlanTest);
  CPPUNIT_TEST(testPlans);
  CPPUNIT_TEST(testBadContentLengths);
  CPPUNIT_TEST(testAmbiguousFramingIsRefused);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testPlans() {
    const BodyPlan fixed = planBody(head("POST", {{"Content-Length", "12"}}), kMax);
    CPPUNIT_ASSERT(fixed.kind == BodyPlan::Kind::Fixed);
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(12), fixed.length);
    CPPUNIT_ASSERT(fixed.readsBytes());
    // Repeated equal lengths were joined by the head reader; accepted.
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(5),
                         planBody(head("POST", {{"Content-Length", "5, 5"}}), kMax).length);
    CPPUNIT_ASSERT(!planBody(head("POST", {{"Content-Length", "0"}}), kMax).readsBytes());
    CPPUNIT_ASSERT(planBody(head("POST", {{"Transfer-Encoding", "Chunked"}}), kMax).kind ==
                   BodyPlan::Kind::Chunked);
    CPPUNIT_ASSERT(planBody(head("GET", {}), kMax).kind == BodyPlan::Kind::None);
    CPPUNIT_ASSERT(planBody(head("DELETE", {}), kMax).kind == BodyPlan::Kind::None);
    // No framing: an empty body for every method (RFC 9112 section 6.3).
    for (const char* method : {"POST", "PUT", "PATCH"}) {
      CPPUNIT_ASSERT(planBody(head(method, {}), kMax).kind == BodyPlan::Kind::None);
    }
    CPPUNIT_ASSERT(refusalOf(head("POST", {{"Content-Length", "101"}})) == ReadState::TooLarge);
    CPPUNIT_ASSERT(planBody(head("POST", {{"Content-Length", "100"}}), kMax).kind ==
                   BodyPlan::Kind::Fixed);
  }

  // Poco threw a SyntaxException for "abc" (the connection just closed) and
  // took "-5" for a length.
  void testBadContentLengths() {
    for (const char* value :
         {"abc", "-5", "+5", "5a", "0x10", "", "5, 6", "5,", "1 2", "99999999999999999999"}) {
      CPPUNIT_ASSERT_MESSAGE(
          value, refusalOf(head("POST", {{"Content-Length", value}})) == ReadState::Malformed);
    }
  }

  // A proxy could frame these otherwise: refused rather than guessed.
  void testAmbiguousFramingIsRefused() {
    CPPUNIT_ASSERT(refusalOf(head("POST", {{"Transfer-Encoding", "chunked"},
                                           {"Content-Length", "3"}})) == ReadState::Malformed);
    for (const char* coding : {"gzip, chunked", "chunked, chunked", "identity", "chunked;x"}) {
      CPPUNIT_ASSERT_MESSAGE(
          coding, refusalOf(head("POST", {{"Transfer-Encoding", coding}})) == ReadState::Malformed);
    }
    CPPUNIT_ASSERT(refusalOf(head("POST", {{"Transfer-Encoding", "chunked"}}, 0)) ==
                   ReadState::Malformed);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(BodyPlanTest);
