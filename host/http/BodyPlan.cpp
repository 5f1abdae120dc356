#include "http/BodyPlan.h"

#include <charconv>
#include <optional>
#include <string_view>

namespace rapport::host {
namespace {

// 18 digits stay below 2^63; any such length is far over the cap anyway.
constexpr std::size_t kMaxLengthDigits = 18;

std::optional<std::uint64_t> lengthValue(std::string_view text) {
  text = trimOws(text);
  if (text.empty() || text.size() > kMaxLengthDigits) return std::nullopt;
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// 1*DIGIT, or a list of the same value ("5, 5": repeated fields were joined,
// RFC 9110 §8.6 lets a recipient accept them). Poco threw a SyntaxException
// for "abc" and took "-5" as a length.
std::optional<std::uint64_t> contentLength(const std::string& field) {
  std::optional<std::uint64_t> length;
  std::string_view rest = field;
  for (;;) {
    const std::size_t comma = rest.find(',');
    const auto value = lengthValue(rest.substr(0, comma));
    if (!value || (length && *length != *value)) return std::nullopt;
    length = value;
    if (comma == std::string_view::npos) return length;
    rest = rest.substr(comma + 1);
  }
}

BodyPlan refused(ReadState why) {
  return BodyPlan{BodyPlan::Kind::Refused, 0, why};
}

BodyPlan planTransferCoding(const RequestHead& head, const std::string& coding) {
  // Both framings at once (RFC 9112 §6.3: "ought to be handled as an
  // error"), chunked from an HTTP/1.0 client (RFC 9112 §6.1: faulty
  // framing), or a coding other than chunked alone: the end of the body
  // cannot be known for sure.
  if (head.headers.count("Content-Length") > 0 || head.minorVersion == 0 ||
      !sameToken(trimOws(coding), "chunked")) {
    return refused(ReadState::Malformed);
  }
  return BodyPlan{BodyPlan::Kind::Chunked, 0, ReadState::Complete};
}

BodyPlan planContentLength(const std::string& field, std::size_t maxBytes) {
  const auto length = contentLength(field);
  if (!length) return refused(ReadState::Malformed);
  if (*length > maxBytes) return refused(ReadState::TooLarge);
  return BodyPlan{BodyPlan::Kind::Fixed, *length, ReadState::Complete};
}

}  // namespace

BodyPlan planBody(const RequestHead& head, std::size_t maxBytes) {
  if (const auto it = head.headers.find("Transfer-Encoding"); it != head.headers.end()) {
    return planTransferCoding(head, it->second);
  }
  if (const auto it = head.headers.find("Content-Length"); it != head.headers.end()) {
    return planContentLength(it->second, maxBytes);
  }
  // Neither framing: the body is empty, whatever the method (RFC 9112
  // section 6.3). Nothing is read, so no client can hold a worker by
  // sending a body without announcing it.
  return BodyPlan{};
}

}  // namespace rapport::host
