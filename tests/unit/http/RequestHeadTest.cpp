// RequestHead: the request line and header fields, read strictly (RFC 9112
// §2-5), with a status for each refusal; nothing past the head is consumed.
#include <cppunit/extensions/HelperMacros.h>

#include <string>

#include "http/RequestHead.h"
#include "unit/http/StringSource.h"

using rapport::host::HeadRead;
using rapport::host::readRequestHead;
using rapport::host::ReadState;
using rapport::test::StringSource;

namespace {

HeadRead parse(const std::string& bytes) {
  StringSource in(bytes);
  return readRequestHead(in);
}

ReadState refusalOf(const std::string& bytes) {
  const HeadRead read = parse(bytes);
  CPPUNIT_ASSERT_MESSAGE(bytes.substr(0, 60), read.outcome == HeadRead::Outcome::Refused);
  return read.refusal;
}

}  // namespace

class RequestHeadTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(RequestHeadTest);
  CPPUNIT_TEST(testWellFormedHead);
  CPPUNIT_TEST(testStopsAtTheEndOfTheHead);
  CPPUNIT_TEST(testEmptyLinesBeforeTheRequest);
  CPPUNIT_TEST(testBareLfIsRefused);
  CPPUNIT_TEST(testHost);
  CPPUNIT_TEST(testEndOfStream);
  CPPUNIT_TEST(testMalformedRequestLines);
  CPPUNIT_TEST(testVersions);
  CPPUNIT_TEST(testMalformedFields);
  CPPUNIT_TEST(testLimits);
  CPPUNIT_TEST(testKeepAliveAndContinue);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testWellFormedHead() {
    const HeadRead read = parse(
        "POST /v1/x?a=1 HTTP/1.1\r\nHost: example.com\r\nX-Tag:  a \t\r\nx-tag: b\r\n"
        "Empty:\r\n\r\n");
    CPPUNIT_ASSERT(read.outcome == HeadRead::Outcome::Request);
    CPPUNIT_ASSERT_EQUAL(std::string("POST"), read.head.method);
    CPPUNIT_ASSERT_EQUAL(std::string("/v1/x?a=1"), read.head.target);
    CPPUNIT_ASSERT_EQUAL(1, read.head.minorVersion);
    CPPUNIT_ASSERT_EQUAL(std::string("example.com"), read.head.headers.at("host"));
    // Repeated fields join in order (RFC 9110 §5.3); OWS is trimmed.
    CPPUNIT_ASSERT_EQUAL(std::string("a, b"), read.head.headers.at("X-Tag"));
    CPPUNIT_ASSERT_EQUAL(std::string(""), read.head.headers.at("Empty"));
  }

  // A pipelined next request stays in the stream.
  void testStopsAtTheEndOfTheHead() {
    StringSource in("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n");
    CPPUNIT_ASSERT_EQUAL(std::string("/a"), readRequestHead(in).head.target);
    CPPUNIT_ASSERT_EQUAL(std::string("GET /b HTTP/1.1\r\nHost: x\r\n\r\n"), in.rest());
  }

  void testEmptyLinesBeforeTheRequest() {
    const HeadRead read = parse("\r\n\r\nGET /a HTTP/1.0\r\nA: 1\r\n\r\n");
    CPPUNIT_ASSERT(read.outcome == HeadRead::Outcome::Request);
    CPPUNIT_ASSERT_EQUAL(0, read.head.minorVersion);
    CPPUNIT_ASSERT_EQUAL(std::string("1"), read.head.headers.at("A"));
    std::string many;
    for (int i = 0; i < 20; ++i) many += "\r\n";
    CPPUNIT_ASSERT(refusalOf(many + "GET / HTTP/1.1\r\nHost: x\r\n\r\n") == ReadState::Malformed);
  }

  // RFC 9112 §2.2 lets a server refuse a bare LF; a proxy that reads it
  // otherwise than we do could smuggle a request past itself.
  void testBareLfIsRefused() {
    for (const std::string head :
         {"GET / HTTP/1.1\nHost: x\r\n\r\n", "GET / HTTP/1.1\r\nHost: x\n\r\n",
          "GET / HTTP/1.1\r\nHost: x\r\nA: 1\n\r\n", "GET / HTTP/1.1\r\nHost: x\r\n\n",
          "GET / HTTP/1.0\r\n\n", "\nGET / HTTP/1.1\r\nHost: x\r\n\r\n",
          "GET / HTTP/1.1\r\nHost: x\r\n\n\r\n"}) {
      CPPUNIT_ASSERT_MESSAGE(head, refusalOf(head) == ReadState::Malformed);
    }
    // The whole head refused, the pipelined rest not read as a request.
    StringSource in("GET /a HTTP/1.1\nHost: x\n\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n");
    CPPUNIT_ASSERT(readRequestHead(in).outcome == HeadRead::Outcome::Refused);
  }

  // RFC 9112 §3.2: HTTP/1.1 needs exactly one Host; HTTP/1.0 may omit it.
  void testHost() {
    CPPUNIT_ASSERT(refusalOf("GET / HTTP/1.1\r\n\r\n") == ReadState::HostMissing);
    CPPUNIT_ASSERT(refusalOf("GET / HTTP/1.2\r\nA: 1\r\n\r\n") == ReadState::HostMissing);
    CPPUNIT_ASSERT(refusalOf("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n") ==
                   ReadState::HostRepeated);
    CPPUNIT_ASSERT(refusalOf("GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\nhOST: a\r\n\r\n") ==
                   ReadState::HostRepeated);
    CPPUNIT_ASSERT(refusalOf("GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n") ==
                   ReadState::HostRepeated);
    CPPUNIT_ASSERT(parse("GET / HTTP/1.0\r\n\r\n").outcome == HeadRead::Outcome::Request);
    // An empty value is what a client sends for a target without authority.
    CPPUNIT_ASSERT(parse("GET / HTTP/1.1\r\nhost:\r\n\r\n").outcome == HeadRead::Outcome::Request);
  }

  void testEndOfStream() {
    CPPUNIT_ASSERT(parse("").outcome == HeadRead::Outcome::NoRequest);
    CPPUNIT_ASSERT(parse("\r\n").outcome == HeadRead::Outcome::NoRequest);
    // Ended inside the head: answered (a half-closed client still reads).
    CPPUNIT_ASSERT(refusalOf("GET / HT") == ReadState::Malformed);
    CPPUNIT_ASSERT(refusalOf("GET / HTTP/1.1\r\nHost: x\r\n") == ReadState::Malformed);
  }

  void testMalformedRequestLines() {
    for (const std::string line : {"GARBAGE", "GET /", "GET  / HTTP/1.1", "GET / HTTP/1.1 ",
                                   "GET /a b HTTP/1.1", "G@T / HTTP/1.1", "GET /\x01 HTTP/1.1",
                                   "GET /\r HTTP/1.1", " GET / HTTP/1.1", "GET\t/ HTTP/1.1"}) {
      CPPUNIT_ASSERT_MESSAGE(line, refusalOf(line + "\r\n\r\n") == ReadState::Malformed);
    }
  }

  void testVersions() {
    CPPUNIT_ASSERT(refusalOf("GET / FOO\r\n\r\n") == ReadState::Malformed);
    CPPUNIT_ASSERT(refusalOf("GET / HTTP/1\r\n\r\n") == ReadState::Malformed);
    CPPUNIT_ASSERT(refusalOf("GET / http/1.1\r\n\r\n") == ReadState::Malformed);
    CPPUNIT_ASSERT(refusalOf("GET / HTTP/11.1\r\n\r\n") == ReadState::Malformed);
    CPPUNIT_ASSERT(refusalOf("GET / HTTP/2.0\r\n\r\n") == ReadState::VersionNotSupported);
    CPPUNIT_ASSERT(refusalOf("PRI * HTTP/2.0\r\n\r\n") == ReadState::VersionNotSupported);
    CPPUNIT_ASSERT(refusalOf("GET / HTTP/0.9\r\n\r\n") == ReadState::VersionNotSupported);
    const HeadRead later = parse("GET / HTTP/1.2\r\nHost: x\r\n\r\n");
    CPPUNIT_ASSERT(later.outcome == HeadRead::Outcome::Request);
    CPPUNIT_ASSERT_EQUAL(2, later.head.minorVersion);
  }

  // Poco skipped the first two and kept "Host " as a field name.
  void testMalformedFields() {
    for (const std::string field :
         {"NoColon", "Host : x", "Host\t: x", ": empty-name", "Bad Name: x", "X: a\x01z", "X: a\rb",
          " folded", "\tfolded", "X: a\x7f"}) {
      CPPUNIT_ASSERT_MESSAGE(field, refusalOf("GET / HTTP/1.1\r\nA: 1\r\n" + field + "\r\n\r\n") ==
                                        ReadState::Malformed);
    }
    // obs-text is allowed in a value.
    CPPUNIT_ASSERT(parse("GET / HTTP/1.1\r\nHost: x\r\nX: caf\xc3\xa9\r\n\r\n").outcome ==
                   HeadRead::Outcome::Request);
  }

  void testLimits() {
    using rapport::host::kMaxFieldLine;
    using rapport::host::kMaxFields;
    using rapport::host::kMaxRequestLine;
    const std::string longTarget = "/" + std::string(kMaxRequestLine, 'a');
    CPPUNIT_ASSERT(refusalOf("GET " + longTarget + " HTTP/1.1\r\n\r\n") == ReadState::UriTooLong);
    const std::string fits = "/" + std::string(kMaxRequestLine - 14, 'a');
    CPPUNIT_ASSERT(parse("GET " + fits + " HTTP/1.1\r\nHost: x\r\n\r\n").outcome ==
                   HeadRead::Outcome::Request);

    const std::string longField = "X: " + std::string(kMaxFieldLine, 'a');
    CPPUNIT_ASSERT(refusalOf("GET / HTTP/1.1\r\n" + longField + "\r\n\r\n") ==
                   ReadState::HeaderFieldsTooLarge);
    const std::string fitsField = "X: " + std::string(kMaxFieldLine - 3, 'a');
    CPPUNIT_ASSERT(parse("GET / HTTP/1.1\r\nHost: x\r\n" + fitsField + "\r\n\r\n").outcome ==
                   HeadRead::Outcome::Request);

    std::string many = "GET / HTTP/1.1\r\nHost: x\r\n";
    for (std::size_t i = 1; i < kMaxFields; ++i) many += "F" + std::to_string(i) + ": x\r\n";
    CPPUNIT_ASSERT(parse(many + "\r\n").outcome == HeadRead::Outcome::Request);
    CPPUNIT_ASSERT(refusalOf(many + "One-More: x\r\n\r\n") == ReadState::HeaderFieldsTooLarge);

    // Fields each within the line limit, together over the head limit.
    std::string big = "GET / HTTP/1.1\r\n";
    for (int i = 0; i < 9; ++i)
      big += "F" + std::to_string(i) + ": " + std::string(8000, 'b') + "\r\n";
    CPPUNIT_ASSERT(refusalOf(big + "\r\n") == ReadState::HeaderFieldsTooLarge);
  }

  void testKeepAliveAndContinue() {
    CPPUNIT_ASSERT(parse("GET / HTTP/1.1\r\nHost: x\r\n\r\n").head.keepAlive());
    CPPUNIT_ASSERT(
        !parse("GET / HTTP/1.1\r\nHost: x\r\nConnection: Close\r\n\r\n").head.keepAlive());
    CPPUNIT_ASSERT(
        !parse("GET / HTTP/1.1\r\nHost: x\r\nConnection: te, close\r\n\r\n").head.keepAlive());
    CPPUNIT_ASSERT(!parse("GET / HTTP/1.0\r\n\r\n").head.keepAlive());
    CPPUNIT_ASSERT(parse("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").head.keepAlive());

    CPPUNIT_ASSERT(
        parse("PUT / HTTP/1.1\r\nHost: x\r\nExpect: 100-Continue\r\n\r\n").head.expectsContinue());
    CPPUNIT_ASSERT(!parse("PUT / HTTP/1.1\r\nHost: x\r\n\r\n").head.expectsContinue());
    // RFC 9110 §10.1.1: ignored from an HTTP/1.0 client.
    CPPUNIT_ASSERT(!parse("PUT / HTTP/1.0\r\nExpect: 100-continue\r\n\r\n").head.expectsContinue());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(RequestHeadTest);
