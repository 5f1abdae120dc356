// RequestReader: one request framed out of bytes however they arrive. Each
// case is fed whole and one byte at a time with the same outcome; what a
// request does not take stays for the next one; a head is decided as soon
// as its bytes decide it (its end, a bare LF, a size past the limits), and
// a stream that ends early is answered as the parsers say.
#include <cppunit/extensions/HelperMacros.h>

#include <string>
#include <vector>

#include "http/RequestReader.h"

using rapport::host::RawRequest;
using rapport::host::ReadState;
using rapport::host::RequestReader;

namespace {

constexpr std::size_t kMaxBody = 64;

struct Outcome {
  RequestReader::Step step = RequestReader::Step::NeedMore;
  RawRequest request;
  RequestReader::Framing framing;
  std::size_t offset = 0;  // where the next request starts
  std::size_t fedAt = 0;   // bytes fed when the step was decided
  bool continued = false;  // takeContinue() said yes at some point
};

// Feeds `bytes` `step` bytes at a time until the reader decides; then, if
// still undecided, says the stream ended when `end`.
Outcome feed(const std::string& bytes, std::size_t step, bool end = false) {
  RequestReader reader(kMaxBody);
  Outcome out;
  std::string buffer;
  for (std::size_t fed = 0; fed < bytes.size();) {
    const std::size_t n = std::min(step, bytes.size() - fed);
    buffer.append(bytes, fed, n);
    fed += n;
    out.step = reader.advance(buffer, out.offset, false);
    out.continued = reader.takeContinue() || out.continued;
    if (out.step != RequestReader::Step::NeedMore) {
      out.fedAt = fed;
      break;
    }
  }
  if (out.step == RequestReader::Step::NeedMore && end) {
    out.step = reader.advance(buffer, out.offset, true);
    out.fedAt = bytes.size();
  }
  if (out.step == RequestReader::Step::Ready) out.request = reader.take(out.framing);
  return out;
}

// Whole and byte by byte agree; returns the byte-by-byte outcome.
Outcome both(const std::string& bytes, bool end = false) {
  const Outcome whole = feed(bytes, bytes.size() + 1, end);
  const Outcome bytewise = feed(bytes, 1, end);
  CPPUNIT_ASSERT(whole.step == bytewise.step);
  CPPUNIT_ASSERT(whole.request.readState == bytewise.request.readState);
  CPPUNIT_ASSERT_EQUAL(whole.request.method, bytewise.request.method);
  CPPUNIT_ASSERT_EQUAL(whole.request.path, bytewise.request.path);
  CPPUNIT_ASSERT_EQUAL(whole.request.body, bytewise.request.body);
  CPPUNIT_ASSERT_EQUAL(whole.offset, bytewise.offset);
  return bytewise;
}

}  // namespace

class RequestReaderTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(RequestReaderTest);
  CPPUNIT_TEST(testRequestWithFixedBody);
  CPPUNIT_TEST(testChunkedBody);
  CPPUNIT_TEST(testPipelinedBytesStay);
  CPPUNIT_TEST(testHeadDecidedAtItsEnd);
  CPPUNIT_TEST(testBareLfDecidesAtOnce);
  CPPUNIT_TEST(testOverlongLinesDecideWithoutTheirEnd);
  CPPUNIT_TEST(testStreamEndingEarly);
  CPPUNIT_TEST(testNothingAtAll);
  CPPUNIT_TEST(testContinueOnlyWhenTheBodyIsRead);
  CPPUNIT_TEST(testFraming);
  CPPUNIT_TEST(testReaderServesTheNextRequest);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testRequestWithFixedBody() {
    const Outcome out =
        both("POST /v1/echo?a=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\n\r\n{\"n\":1}");
    CPPUNIT_ASSERT(out.step == RequestReader::Step::Ready);
    CPPUNIT_ASSERT(out.request.readState == ReadState::Complete);
    CPPUNIT_ASSERT_EQUAL(std::string("POST"), out.request.method);
    CPPUNIT_ASSERT_EQUAL(std::string("/v1/echo"), out.request.path);
    CPPUNIT_ASSERT_EQUAL(std::string("a=1"), out.request.query);
    CPPUNIT_ASSERT_EQUAL(std::string("x"), out.request.headers.at("Host"));
    CPPUNIT_ASSERT_EQUAL(std::string("{\"n\":1}"), out.request.body);
    CPPUNIT_ASSERT(out.framing.consumed);
  }

  void testChunkedBody() {
    const Outcome out = both(
        "POST /v1/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        "4\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\n\r\n");
    CPPUNIT_ASSERT(out.request.readState == ReadState::Complete);
    CPPUNIT_ASSERT_EQUAL(std::string("{\"a\":1}"), out.request.body);
    CPPUNIT_ASSERT(out.framing.consumed);
  }

  void testPipelinedBytesStay() {
    const std::string first = "GET /v1/a HTTP/1.1\r\nHost: x\r\n\r\n";
    const Outcome out = both(first + "GET /v1/b HTTP/1.1\r\nHost: x\r\n\r\n");
    CPPUNIT_ASSERT_EQUAL(first.size(), out.offset);
    CPPUNIT_ASSERT_EQUAL(first.size(), out.fedAt);  // decided at its own last byte
  }

  void testHeadDecidedAtItsEnd() {
    const std::string head = "GET /v1/a HTTP/1.1\r\nHost: x\r\n";
    CPPUNIT_ASSERT(feed(head, 1).step == RequestReader::Step::NeedMore);
    CPPUNIT_ASSERT(feed(head + "\r", 1).step == RequestReader::Step::NeedMore);
    // A refused request line is still only judged once the head ends.
    const Outcome garbage = both("GARBAGE\r\n\r\n");
    CPPUNIT_ASSERT(garbage.request.readState == ReadState::Malformed);
    CPPUNIT_ASSERT(!garbage.framing.consumed);
    // Leading empty lines are skipped, not taken for the end of the head.
    const Outcome leading = both("\r\n\r\nGET /v1/a HTTP/1.1\r\nHost: x\r\n\r\n");
    CPPUNIT_ASSERT(leading.request.readState == ReadState::Complete);
  }

  void testBareLfDecidesAtOnce() {
    const std::string line = "GET /v1/a HTTP/1.1\n";
    const Outcome out = both(line + "Host: x\r\n");
    CPPUNIT_ASSERT(out.request.readState == ReadState::Malformed);
    CPPUNIT_ASSERT_EQUAL(line.size(), out.fedAt);
  }

  // 414 and 431 come while the line is still arriving, not at its end.
  void testOverlongLinesDecideWithoutTheirEnd() {
    const Outcome uri = feed("GET /" + std::string(20000, 'a'), 1000);
    CPPUNIT_ASSERT(uri.step == RequestReader::Step::Ready);
    CPPUNIT_ASSERT(uri.request.readState == ReadState::UriTooLong);
    const Outcome field =
        feed("GET /v1/a HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(20000, 'a'), 1000);
    CPPUNIT_ASSERT(field.step == RequestReader::Step::Ready);
    CPPUNIT_ASSERT(field.request.readState == ReadState::HeaderFieldsTooLarge);
    std::string many = "GET /v1/a HTTP/1.1\r\nHost: x\r\n";
    for (int i = 0; i < 200; ++i) many += "X-" + std::to_string(i) + ": 1\r\n";
    const Outcome fields = both(many);
    CPPUNIT_ASSERT(fields.request.readState == ReadState::HeaderFieldsTooLarge);
  }

  void testStreamEndingEarly() {
    const Outcome head = both("GET /v1/a HTTP/1.1\r\nHost: x\r\n", true);
    CPPUNIT_ASSERT(head.step == RequestReader::Step::Ready);
    CPPUNIT_ASSERT(head.request.readState == ReadState::Malformed);
    const Outcome body =
        both("POST /v1/a HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\nabc", true);
    CPPUNIT_ASSERT(body.request.readState == ReadState::Incomplete);
    CPPUNIT_ASSERT_EQUAL(std::string("POST"), body.request.method);
    CPPUNIT_ASSERT(body.request.body.empty());
    CPPUNIT_ASSERT(!body.framing.consumed);
  }

  void testNothingAtAll() {
    CPPUNIT_ASSERT(feed("", 1, true).step == RequestReader::Step::Nothing);
    CPPUNIT_ASSERT(feed("\r\n", 1, true).step == RequestReader::Step::Nothing);
  }

  void testContinueOnlyWhenTheBodyIsRead() {
    const std::string expect = "Expect: 100-continue\r\n";
    CPPUNIT_ASSERT(
        feed("POST /v1/a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n" + expect + "\r\n", 1)
            .continued);
    // 413 on the headers alone: the body is never asked for.
    const Outcome large =
        feed("POST /v1/a HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n" + expect + "\r\n", 1);
    CPPUNIT_ASSERT(!large.continued);
    CPPUNIT_ASSERT(large.request.readState == ReadState::TooLarge);
    CPPUNIT_ASSERT(!feed("GET /v1/a HTTP/1.1\r\nHost: x\r\n" + expect + "\r\n", 1).continued);
  }

  void testFraming() {
    CPPUNIT_ASSERT(both("GET /v1/a HTTP/1.1\r\nHost: x\r\n\r\n").framing.clientKeepsAlive);
    CPPUNIT_ASSERT(!both("GET /v1/a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                        .framing.clientKeepsAlive);
    CPPUNIT_ASSERT(!both("GET /v1/a HTTP/1.0\r\n\r\n").framing.clientKeepsAlive);
    CPPUNIT_ASSERT(both("HEAD /v1/a HTTP/1.1\r\nHost: x\r\n\r\n").framing.headRequest);
  }

  // After take(), the same reader frames the next request from the offset.
  void testReaderServesTheNextRequest() {
    RequestReader reader(kMaxBody);
    const std::string buffer =
        "POST /v1/a HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"
        "GET /v1/b HTTP/1.1\r\nHost: x\r\n\r\n";
    std::size_t offset = 0;
    RequestReader::Framing framing;
    CPPUNIT_ASSERT(reader.advance(buffer, offset, false) == RequestReader::Step::Ready);
    CPPUNIT_ASSERT_EQUAL(std::string("/v1/a"), reader.take(framing).path);
    CPPUNIT_ASSERT(!reader.started() || offset < buffer.size());
    CPPUNIT_ASSERT(reader.advance(buffer, offset, false) == RequestReader::Step::Ready);
    CPPUNIT_ASSERT_EQUAL(std::string("/v1/b"), reader.take(framing).path);
    CPPUNIT_ASSERT_EQUAL(buffer.size(), offset);
    CPPUNIT_ASSERT(reader.advance(buffer, offset, true) == RequestReader::Step::Nothing);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(RequestReaderTest);
