// ChunkedDecoder: chunked bodies pushed in pieces (RFC 9112 §7.1). Every
// case is decoded whole, byte by byte and in seeded random splits, and must
// give the same status, data and consumed count each way; the bytes after
// the body (a pipelined request) are left in the input untouched.
#include <cppunit/extensions/HelperMacros.h>

#include <cstddef>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "http/ChunkedDecoder.h"
#include "http/RequestHead.h"

using rapport::host::ChunkedDecoder;
using rapport::host::kMaxFieldLine;
using rapport::host::kMaxFields;
using rapport::host::ReadState;
using Status = rapport::host::ChunkedDecoder::Status;

namespace {

constexpr std::size_t kMax = 100;

struct Outcome {
  Status status = Status::NeedMore;
  ReadState failure = ReadState::Complete;
  std::string body;
  std::size_t consumed = 0;
  std::string left;  // what feed() left unconsumed, in its input and after it
};

// The case in an assertion message: control bytes escaped, long ones cut.
std::string printable(std::string_view bytes) {
  std::string out;
  for (const char c : bytes.substr(0, 60)) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\r') {
      out += "\\r";
    } else if (c == '\n') {
      out += "\\n";
    } else if (byte < 0x20 || byte >= 0x7F) {
      out += "\\x" + std::to_string(byte);
    } else {
      out += c;
    }
  }
  return bytes.size() > 60 ? out + "... (" + std::to_string(bytes.size()) + " bytes)" : out;
}

// Feeds `bytes` cut into pieces of the given lengths (the rest in a last
// piece), as a connection receives them, until the decoder stops asking.
Outcome feedPieces(std::string_view bytes, std::size_t max,
                   const std::vector<std::size_t>& lengths) {
  ChunkedDecoder decoder(max);
  Outcome out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= lengths.size() && out.status == Status::NeedMore; ++i) {
    const std::size_t length = i < lengths.size() ? lengths[i] : bytes.size() - start;
    std::string_view piece = bytes.substr(start, length);
    start += piece.size();
    out.status = decoder.feed(piece);
    if (out.status == Status::NeedMore) {
      CPPUNIT_ASSERT_MESSAGE("NeedMore consumes all", piece.empty());
    } else {
      out.left = std::string(piece) + std::string(bytes.substr(start));
    }
  }
  out.failure = decoder.failure();
  out.body = decoder.body();
  out.consumed = decoder.consumed();
  if (out.status != Status::NeedMore) {
    // Once done or failed, it takes nothing more.
    std::string_view more = out.left;
    CPPUNIT_ASSERT(decoder.feed(more) == out.status);
    CPPUNIT_ASSERT_EQUAL(out.left.size(), more.size());
    CPPUNIT_ASSERT_EQUAL(out.consumed, decoder.consumed());
  }
  return out;
}

std::vector<std::size_t> bytewise(std::size_t size) {
  return std::vector<std::size_t>(size, 1);
}

// Piece lengths from 0 (an empty read) to `longest`, covering `size`.
std::vector<std::size_t> randomSplit(std::size_t size, unsigned seed, std::size_t longest) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<std::size_t> length(0, longest);
  std::vector<std::size_t> lengths;
  for (std::size_t total = 0; total < size;) {
    lengths.push_back(length(random));
    total += lengths.back();
  }
  return lengths;
}

void assertSame(const Outcome& expected, const Outcome& actual, const std::string& what) {
  CPPUNIT_ASSERT_MESSAGE(what, expected.status == actual.status);
  CPPUNIT_ASSERT_MESSAGE(what, expected.failure == actual.failure);
  CPPUNIT_ASSERT_EQUAL_MESSAGE(what, expected.body, actual.body);
  CPPUNIT_ASSERT_EQUAL_MESSAGE(what, expected.consumed, actual.consumed);
  CPPUNIT_ASSERT_EQUAL_MESSAGE(what, expected.left, actual.left);
}

// Whole, byte by byte and in eight random splits: one outcome.
Outcome decode(std::string_view bytes, std::size_t max = kMax, std::size_t longest = 12) {
  const Outcome whole = feedPieces(bytes, max, {});
  assertSame(whole, feedPieces(bytes, max, bytewise(bytes.size())),
             printable(bytes) + " byte by byte");
  for (unsigned seed = 1; seed <= 8; ++seed) {
    assertSame(whole, feedPieces(bytes, max, randomSplit(bytes.size(), seed, longest)),
               printable(bytes) + " split " + std::to_string(seed));
  }
  return whole;
}

void assertDone(const std::string& body, const std::string& data, const std::string& next = "",
                std::size_t max = kMax) {
  const Outcome out = decode(body + next, max);
  const std::string what = printable(body);
  CPPUNIT_ASSERT_MESSAGE(what, out.status == Status::Done);
  CPPUNIT_ASSERT_MESSAGE(what, out.failure == ReadState::Complete);
  CPPUNIT_ASSERT_EQUAL_MESSAGE(what, data, out.body);
  CPPUNIT_ASSERT_EQUAL_MESSAGE(what, body.size(), out.consumed);
  CPPUNIT_ASSERT_EQUAL_MESSAGE(what, next, out.left);
}

// `upTo` ends with the byte that shows the failure; `rest` stays unread.
void assertFailed(ReadState why, const std::string& upTo, const std::string& rest,
                  std::size_t max = kMax) {
  const Outcome out = decode(upTo + rest, max);
  const std::string what = printable(upTo + rest);
  CPPUNIT_ASSERT_MESSAGE(what, out.status == Status::Failed);
  CPPUNIT_ASSERT_MESSAGE(what, out.failure == why);
  CPPUNIT_ASSERT_EQUAL_MESSAGE(what, upTo.size(), out.consumed);
  CPPUNIT_ASSERT_EQUAL_MESSAGE(what, rest, out.left);
}

void assertMalformed(const std::string& upTo, const std::string& rest) {
  assertFailed(ReadState::Malformed, upTo, rest);
}

void assertNeedMore(const std::string& bytes, const std::string& dataSoFar) {
  const Outcome out = decode(bytes);
  CPPUNIT_ASSERT_MESSAGE(printable(bytes), out.status == Status::NeedMore);
  CPPUNIT_ASSERT_MESSAGE(printable(bytes), out.failure == ReadState::Complete);
  CPPUNIT_ASSERT_EQUAL_MESSAGE(printable(bytes), dataSoFar, out.body);
  CPPUNIT_ASSERT_EQUAL_MESSAGE(printable(bytes), bytes.size(), out.consumed);
}

std::string repeat(const std::string& text, std::size_t times) {
  std::string out;
  for (std::size_t i = 0; i < times; ++i) out += text;
  return out;
}

}  // namespace

class ChunkedDecoderTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ChunkedDecoderTest);
  CPPUNIT_TEST(testChunks);
  CPPUNIT_TEST(testSizeLines);
  CPPUNIT_TEST(testTrailers);
  CPPUNIT_TEST(testPipelinedBytesStay);
  CPPUNIT_TEST(testBadChunks);
  CPPUNIT_TEST(testBareLfIsRefused);
  CPPUNIT_TEST(testCrWithoutLfIsRefused);
  CPPUNIT_TEST(testLineLimits);
  CPPUNIT_TEST(testTooLarge);
  CPPUNIT_TEST(testUnfinishedBodies);
  CPPUNIT_TEST(testMemoryFollowsTheData);
  CPPUNIT_TEST(testMegabyteOfOneByteChunks);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testChunks() {
    assertDone("5;name=value\r\nhello\r\n1A \r\n" + std::string(26, 'x') +
                   "\r\n0\r\nTrailer: ignored\r\n\r\n",
               "hello" + std::string(26, 'x'));
    assertDone("0\r\n\r\n", "");
    assertDone("000\r\n\r\n", "");
    assertDone("a\r\n0123456789\r\nA\r\nabcdefghij\r\n0\r\n\r\n", "0123456789abcdefghij");
    // Data is opaque: CR, LF, NUL and "0\r\n\r\n" inside it are data.
    const std::string data("\r\n0\r\n\r\n\0\n", 9);
    assertDone("9\r\n" + data + "\r\n0\r\n\r\n", data);
  }

  void testSizeLines() {
    // BWS before ";" or the CRLF; extensions of any non-control bytes.
    assertDone("2 \t\r\nab\r\n0\r\n\r\n", "ab");
    assertDone("2\t ;x\r\nab\r\n0 ;last\r\n\r\n", "ab");
    assertDone("2;\r\nab\r\n0\r\n\r\n", "ab");
    assertDone("2;a=\"b;c\"\t; d = e;\x80\xff\r\nab\r\n0\r\n\r\n", "ab");
    // 15 digits, leading zeros included.
    assertDone("000000000000002\r\nab\r\n0\r\n\r\n", "ab");
  }

  void testTrailers() {
    assertDone("1\r\nx\r\n0\r\nA: 1\r\nB:\t2\r\n\r\n", "x");
    // Dropped unparsed: only the line framing counts.
    assertDone("1\r\nx\r\n0\r\nnot a field\x01\r\n\r\n", "x");
  }

  void testPipelinedBytesStay() {
    assertDone("1\r\nx\r\n0\r\n\r\n", "x", "GET /next HTTP/1.1\r\nHost: a\r\n\r\n");
    assertDone("1\r\nx\r\n0\r\nT: 1\r\n\r\n", "x", "\r\n\r\n");
    assertDone("0\r\n\r\n", "", "0\r\n\r\n");
    assertDone("0\r\n\r\n", "", "\n");
  }

  // Poco's HTTPChunkedInputStream ended the body quietly on some of these.
  void testBadChunks() {
    assertMalformed("z", "z\r\n{}\r\n0\r\n\r\n");
    assertMalformed("\r", "\n");
    assertMalformed(" ", "2\r\n{}\r\n0\r\n\r\n");
    assertMalformed("2x", "\r\n{}\r\n0\r\n\r\n");
    assertMalformed("-", "2\r\n{}\r\n0\r\n\r\n");
    assertMalformed("+", "2\r\n{}\r\n0\r\n\r\n");
    assertMalformed("0x", "2\r\n{}\r\n0\r\n\r\n");
    assertMalformed("1 1", "\r\n{}\r\n0\r\n\r\n");
    assertMalformed("2 x", "\r\n{}\r\n0\r\n\r\n");
    assertMalformed("2\r\n{}x", "x\r\n0\r\n\r\n");
    assertMalformed("2\r\n{}\r\nz", "z\r\n");
    assertMalformed("2;\x01", "\r\n{}\r\n0\r\n\r\n");
    assertMalformed("2;a\x7f", "\r\n{}\r\n0\r\n\r\n");
    assertMalformed(std::string("2;a\0", 4), "\r\n{}\r\n0\r\n\r\n");
    // A 16th digit, even a leading zero.
    assertMalformed("1000000000000000", "\r\n");
    assertMalformed("0000000000000000", "2\r\n{}\r\n0\r\n\r\n");
  }

  // RFC 9112 §2.2 lets a server refuse a bare LF; a proxy that splits the
  // lines otherwise than we do could smuggle a request past itself.
  void testBareLfIsRefused() {
    assertMalformed("2\n", "ab\n0\n\n");
    assertMalformed("2 \n", "ab\r\n0\r\n\r\n");
    assertMalformed("2;x\n", "ab\r\n0\r\n\r\n");
    assertMalformed("\n", "");
    assertMalformed("2\r\nab\n", "0\r\n\r\n");
    assertMalformed("0\n", "\r\n");
    assertMalformed("0\r\nT: x\n", "\r\n");
    assertMalformed("0\r\n\n", "");
    assertMalformed("0\r\nT: x\r\n\n", "");
  }

  void testCrWithoutLfIsRefused() {
    assertMalformed("2\rx", "ab\r\n0\r\n\r\n");
    assertMalformed("2\r\r", "\nab\r\n0\r\n\r\n");
    assertMalformed("2\r\nab\rx", "0\r\n\r\n");
    assertMalformed("2\r\nab\r\r", "\n0\r\n\r\n");
    assertMalformed("0\r\nT: a\rb", "\r\n\r\n");
    assertMalformed("0\r\nT: a\r\r", "\n\r\n");
    assertMalformed("0\r\n\rx", "");
    assertMalformed("0\r\n\r\r", "\n");
  }

  // A size line of 4096 bytes, kMaxFields trailer lines of kMaxFieldLine
  // bytes: refused at the first byte over.
  void testLineLimits() {
    assertDone("1;" + std::string(4094, 'e') + "\r\nx\r\n0\r\n\r\n", "x");
    assertMalformed("1;" + std::string(4095, 'e'), "\r\nx\r\n0\r\n\r\n");
    assertMalformed("1" + std::string(4096, ' '), "\r\nx\r\n0\r\n\r\n");
    const std::string field = "T: " + std::string(kMaxFieldLine - 3, 'v') + "\r\n";
    assertDone("0\r\n" + repeat(field, kMaxFields) + "\r\n", "");
    assertMalformed("0\r\n" + repeat(field, kMaxFields) + "T", ": x\r\n\r\n");
    assertMalformed("0\r\nT: " + std::string(kMaxFieldLine - 2, 'v'), "\r\n\r\n");
  }

  // Refused at the size line that would go over, its data unread.
  void testTooLarge() {
    assertDone("a\r\n0123456789\r\n0\r\n\r\n", "0123456789", "", 10);
    assertDone("5\r\nhello\r\n5\r\nworld\r\n0\r\n\r\n", "helloworld", "", 10);
    assertDone("0\r\n\r\n", "", "", 0);
    assertFailed(ReadState::TooLarge, "5\r\nhello\r\n5\r\n", "world\r\n0\r\n\r\n", 9);
    assertFailed(ReadState::TooLarge, "a\r\n0123456789\r\n1;x\r\n", "x\r\n0\r\n\r\n", 10);
    assertFailed(ReadState::TooLarge, "1\r\n", "x\r\n0\r\n\r\n", 0);
    assertFailed(ReadState::TooLarge, "ffffffff\r\n", "");
    assertFailed(ReadState::TooLarge, "fffffffffffffff\r\n", "x\r\n0\r\n\r\n");
    // Kept data so far.
    CPPUNIT_ASSERT_EQUAL(std::string("hello"), decode("5\r\nhello\r\n5\r\nworld", 9).body);
    // A malformed size line is Malformed, however large.
    assertMalformed("ffffffff;\x01", "\r\n");
  }

  // The stream may go on: the caller decides, on its end or a timeout,
  // that the body is incomplete.
  void testUnfinishedBodies() {
    assertNeedMore("", "");
    for (const std::string bytes : {"5", "5 ", "5;ext", "5\r", "5\r\n", "0\r\n", "0\r\n\r",
                                    "0\r\nT", "0\r\nT: x\r", "0\r\nT: x\r\n"}) {
      assertNeedMore(bytes, "");
    }
    assertNeedMore("5\r\nhel", "hel");
    assertNeedMore("5\r\nhello", "hello");
    assertNeedMore("5\r\nhello\r", "hello");
    assertNeedMore("5\r\nhello\r\n", "hello");
    assertNeedMore("5\r\nhello\r\n2\r\n!", "hello!");
  }

  // A size line announcing much keeps nothing until the data comes.
  void testMemoryFollowsTheData() {
    ChunkedDecoder decoder(std::size_t{1} << 30);
    std::string_view input = "3fffffff\r\nab";
    CPPUNIT_ASSERT(decoder.feed(input) == Status::NeedMore);
    CPPUNIT_ASSERT_EQUAL(std::string("ab"), decoder.body());
    CPPUNIT_ASSERT(decoder.body().capacity() < 1024);
  }

  // Every byte looked at once: 1 MiB of 1-byte chunks (6 MiB of framing),
  // exactly the cap, in one piece, byte by byte and in socket-sized reads.
  // A decoder restarting on each piece would not finish.
  void testMegabyteOfOneByteChunks() {
    constexpr std::size_t kMiB = std::size_t{1} << 20;
    std::string bytes;
    std::string data;
    for (std::size_t i = 0; i < kMiB; ++i) {
      const char byte = static_cast<char>('a' + i % 26);
      bytes += "1\r\n";
      bytes += byte;
      bytes += "\r\n";
      data += byte;
    }
    bytes += "0\r\n\r\n";
    const Outcome out = decode(bytes, kMiB, 65536);
    CPPUNIT_ASSERT(out.status == Status::Done);
    CPPUNIT_ASSERT(out.body == data);
    CPPUNIT_ASSERT_EQUAL(bytes.size(), out.consumed);
    // One byte less allowed: the last chunk's size line is refused.
    const Outcome over = feedPieces(bytes, kMiB - 1, {});
    CPPUNIT_ASSERT(over.status == Status::Failed);
    CPPUNIT_ASSERT(over.failure == ReadState::TooLarge);
    CPPUNIT_ASSERT_EQUAL(kMiB - 1, over.body.size());
    CPPUNIT_ASSERT_EQUAL(data.back() + std::string("\r\n0\r\n\r\n"), over.left);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ChunkedDecoderTest);
