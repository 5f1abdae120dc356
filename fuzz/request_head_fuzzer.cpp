// Fuzzes the strict request-head parser (readRequestHead) and the body
// framing decided from an accepted head (planBody).
//
// Properties, beyond "no crash, no sanitizer report":
// - an accepted head has a token method, a target without whitespace or
//   control bytes, token field names and values without CR, LF, NUL or DEL
//   (the bytes that split responses and smuggle requests);
// - the parser never reads past the head: it stops right after an LF, and
//   the bytes consumed stay within the documented limits;
// - "no request" means the input was only empty lines;
// - an accepted head, written back out canonically, parses to the same head;
// - the body plan is consistent with the headers (a length within the cap,
//   chunked only alone and from HTTP/1.1).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "FuzzSupport.h"
#include "http/BodyPlan.h"
#include "http/RequestHead.h"

namespace {

using rapport::host::BodyPlan;
using rapport::host::HeadRead;
using rapport::host::ReadState;
using rapport::host::RequestHead;

bool isTchar(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

bool isToken(std::string_view text) {
  if (text.empty()) return false;
  for (const char c : text) {
    if (!isTchar(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

bool hasNoControlBytes(std::string_view text, bool allowSpaceAndTab) {
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte == 0x7F) return false;
    if (byte < 0x20 && !(allowSpaceAndTab && byte == '\t')) return false;
    if (byte == ' ' && !allowSpaceAndTab) return false;
  }
  return true;
}

// The head as a well-behaved client would send it: CRLF, one space after the
// colon, repeated fields already joined. Empty when it would cross a limit
// that the original (with its fields still apart) did not.
std::string canonical(const RequestHead& head) {
  std::string text =
      head.method + " " + head.target + " HTTP/1." + std::to_string(head.minorVersion) + "\r\n";
  const std::size_t requestLine = text.size() - 2;
  std::size_t fieldBytes = 0;
  for (const auto& [name, value] : head.headers) {
    const std::string line = name + ": " + std::string(rapport::host::trimOws(value));
    if (line.size() > rapport::host::kMaxFieldLine) return {};
    fieldBytes += line.size() + 2;
    text += line + "\r\n";
  }
  if (requestLine + fieldBytes > rapport::host::kMaxHeadBytes) return {};
  return text + "\r\n";
}

void checkBodyPlan(const RequestHead& head) {
  constexpr std::size_t kCap = 1 << 20;
  const BodyPlan plan = rapport::host::planBody(head, kCap);
  const bool chunked = head.headers.count("Transfer-Encoding") > 0;
  const bool length = head.headers.count("Content-Length") > 0;
  switch (plan.kind) {
    case BodyPlan::Kind::None:
      FUZZ_CHECK(!chunked && !length);
      break;
    case BodyPlan::Kind::Fixed:
      FUZZ_CHECK(!chunked && length && plan.length <= kCap);
      break;
    case BodyPlan::Kind::Chunked:
      FUZZ_CHECK(chunked && !length && head.minorVersion >= 1);
      break;
    case BodyPlan::Kind::Refused:
      FUZZ_CHECK(plan.refusal == ReadState::Malformed || plan.refusal == ReadState::TooLarge);
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = rapport::fuzz::asText(data, size);
  rapport::fuzz::BytesSource source(input);
  const HeadRead read = rapport::host::readRequestHead(source);
  const std::size_t consumed = source.consumed();
  FUZZ_CHECK(consumed <= size);

  if (read.outcome == HeadRead::Outcome::NoRequest) {
    FUZZ_CHECK(consumed == size);
    FUZZ_CHECK(input.find_first_not_of("\r\n") == std::string_view::npos);
    return 0;
  }
  if (read.outcome == HeadRead::Outcome::Refused) {
    FUZZ_CHECK(read.refusal != ReadState::Complete && read.refusal != ReadState::Incomplete &&
               read.refusal != ReadState::TooLarge);
    return 0;
  }

  const RequestHead& head = read.head;
  // Stopped right after the empty line: a pipelined request stays unread.
  FUZZ_CHECK(consumed > 0 && input[consumed - 1] == '\n');
  // Up to 8 skipped empty lines, the request line, the fields, the empty line.
  FUZZ_CHECK(consumed <= 9 * 2 + 2 + rapport::host::kMaxHeadBytes + 2);
  FUZZ_CHECK(isToken(head.method));
  FUZZ_CHECK(!head.target.empty() && hasNoControlBytes(head.target, false));
  FUZZ_CHECK(head.minorVersion >= 0 && head.minorVersion <= 9);
  FUZZ_CHECK(head.headers.size() <= rapport::host::kMaxFields);
  for (const auto& [name, value] : head.headers) {
    FUZZ_CHECK(isToken(name));
    FUZZ_CHECK(hasNoControlBytes(value, true));
  }
  (void)head.keepAlive();
  (void)head.expectsContinue();
  checkBodyPlan(head);

  // Written back canonically, the head reads the same (values compared
  // without surrounding whitespace: joining "a" and "" gives "a, ").
  const std::string again = canonical(head);
  if (again.empty()) return 0;
  rapport::fuzz::BytesSource second(again);
  const HeadRead reread = rapport::host::readRequestHead(second);
  FUZZ_CHECK(reread.outcome == HeadRead::Outcome::Request);
  FUZZ_CHECK(second.consumed() == again.size());
  FUZZ_CHECK(reread.head.method == head.method && reread.head.target == head.target &&
             reread.head.minorVersion == head.minorVersion);
  FUZZ_CHECK(reread.head.headers.size() == head.headers.size());
  for (const auto& [name, value] : head.headers) {
    const auto it = reread.head.headers.find(name);
    FUZZ_CHECK(it != reread.head.headers.end() &&
               rapport::host::trimOws(it->second) == rapport::host::trimOws(value));
  }
  return 0;
}
