// BodyReader and ChunkedBody: framing decided from the headers (RFC 9112
// §6), ambiguous framing refused, bodies read exactly (never into the next
// request), bad chunks refused instead of taken for the end of the body.
#include <cppunit/extensions/HelperMacros.h>

#include <string>

#include "http/BodyReader.h"
#include "http/ChunkedBody.h"
#include "unit/http/StringSource.h"

using rapport::host::BodyPlan;
using rapport::host::BodyRead;
using rapport::host::planBody;
using rapport::host::readBody;
using rapport::host::readChunkedBody;
using rapport::host::ReadState;
using rapport::host::RequestHead;
using rapport::test::StringSource;

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

BodyRead chunked(const std::string& bytes, std::size_t max = kMax) {
  StringSource in(bytes);
  return readChunkedBody(in, max);
}

}  // namespace

class BodyReaderTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(BodyReaderTest);
  CPPUNIT_TEST(testPlans);
  CPPUNIT_TEST(testBadContentLengths);
  CPPUNIT_TEST(testAmbiguousFramingIsRefused);
  CPPUNIT_TEST(testFixedBody);
  CPPUNIT_TEST(testChunkedBody);
  CPPUNIT_TEST(testBadChunks);
  CPPUNIT_TEST(testChunkedLimitsAndEnds);
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

  void testFixedBody() {
    const BodyPlan plan = planBody(head("POST", {{"Content-Length", "5"}}), kMax);
    StringSource in(
        "hello"
        "GET /next");
    const BodyRead read = readBody(plan, in, kMax);
    CPPUNIT_ASSERT(read.state == ReadState::Complete);
    CPPUNIT_ASSERT(read.consumed);
    CPPUNIT_ASSERT_EQUAL(std::string("hello"), read.bytes);
    CPPUNIT_ASSERT_EQUAL(std::string("GET /next"), in.rest());

    StringSource shortBody("hel");
    const BodyRead cut = readBody(plan, shortBody, kMax);
    CPPUNIT_ASSERT(cut.state == ReadState::Incomplete);
    CPPUNIT_ASSERT(!cut.consumed);

    // A POST without framing reads nothing: the next request stays in place.
    StringSource none("GET /next");
    const BodyRead empty = readBody(planBody(head("POST", {}), kMax), none, kMax);
    CPPUNIT_ASSERT(empty.state == ReadState::Complete);
    CPPUNIT_ASSERT(empty.consumed);
    CPPUNIT_ASSERT(empty.bytes.empty());
    CPPUNIT_ASSERT_EQUAL(std::string("GET /next"), none.rest());
  }

  void testChunkedBody() {
    StringSource in("5;name=value\r\nhello\r\n1A \r\n" + std::string(26, 'x') +
                    "\r\n0\r\nTrailer: ignored\r\n\r\nGET /next");
    const BodyRead read = readChunkedBody(in, kMax);
    CPPUNIT_ASSERT(read.state == ReadState::Complete);
    CPPUNIT_ASSERT(read.consumed);
    CPPUNIT_ASSERT_EQUAL("hello" + std::string(26, 'x'), read.bytes);
    CPPUNIT_ASSERT_EQUAL(std::string("GET /next"), in.rest());
    // Bare LF line ends, an empty body.
    CPPUNIT_ASSERT_EQUAL(std::string("ab"), chunked("2\nab\n0\n\n").bytes);
    CPPUNIT_ASSERT(chunked("0\r\n\r\n").state == ReadState::Complete);
  }

  // Poco's HTTPChunkedInputStream ended the body quietly on these.
  void testBadChunks() {
    for (const std::string body :
         {"zz\r\n{}\r\n0\r\n\r\n", "\r\n", " 2\r\n{}\r\n0\r\n\r\n", "2x\r\n{}\r\n0\r\n\r\n",
          "-2\r\n{}\r\n0\r\n\r\n", "2\r\n{}xx\r\n0\r\n\r\n", "2\r\n{}\r\nzz\r\n",
          "2;\x01\r\n{}\r\n0\r\n\r\n", "1000000000000000\r\n"}) {
      const BodyRead read = chunked(body);
      CPPUNIT_ASSERT_MESSAGE(body, read.state == ReadState::Malformed);
      CPPUNIT_ASSERT(!read.consumed);
      CPPUNIT_ASSERT(read.bytes.empty());
    }
    CPPUNIT_ASSERT(chunked(std::string(5000, '1') + "\r\n").state == ReadState::Malformed);
  }

  void testChunkedLimitsAndEnds() {
    // Exactly the cap is read; one byte more is TooLarge, unread.
    CPPUNIT_ASSERT(chunked("a\r\n0123456789\r\n0\r\n\r\n", 10).state == ReadState::Complete);
    StringSource over("a\r\n0123456789\r\n1\r\nx\r\n0\r\n\r\n");
    const BodyRead large = readChunkedBody(over, 10);
    CPPUNIT_ASSERT(large.state == ReadState::TooLarge);
    CPPUNIT_ASSERT(!large.consumed);
    CPPUNIT_ASSERT_EQUAL(std::string("x\r\n0\r\n\r\n"), over.rest());
    CPPUNIT_ASSERT(chunked("ffffffff\r\n").state == ReadState::TooLarge);
    // The stream ends early: Incomplete, not Malformed.
    for (const std::string body :
         {"", "5\r\nhel", "5\r\nhello", "5\r\nhello\r\n", "0\r\n", "0\r\nTrailer: x\r\n"}) {
      CPPUNIT_ASSERT_MESSAGE(body, chunked(body).state == ReadState::Incomplete);
    }
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(BodyReaderTest);
