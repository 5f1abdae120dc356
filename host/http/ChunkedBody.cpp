#include "http/ChunkedBody.h"

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "http/RequestHead.h"

namespace rapport::host {
namespace {

// A size line holds the size and any chunk extensions (ignored).
constexpr std::size_t kMaxSizeLine = 4096;
// 15 hex digits stay below 2^60: every such size is far over the cap.
constexpr std::size_t kMaxSizeDigits = 15;

bool isHexDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// chunk-size [ BWS ";" chunk-ext ]: the size, or nothing when malformed.
std::optional<std::uint64_t> chunkSize(std::string_view line) {
  std::size_t digits = 0;
  while (digits < line.size() && isHexDigit(line[digits])) ++digits;
  if (digits == 0 || digits > kMaxSizeDigits) return std::nullopt;
  const std::string_view rest = line.substr(digits);
  const std::size_t next = rest.find_first_not_of(" \t");
  if (next != std::string_view::npos && rest[next] != ';') return std::nullopt;
  for (const char c : rest) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && byte != '\t') || byte == 0x7F) return std::nullopt;
  }
  std::uint64_t size = 0;
  if (std::from_chars(line.data(), line.data() + digits, size, 16).ec != std::errc()) {
    return std::nullopt;
  }
  return size;
}

BodyRead failed(ReadState why) {
  return BodyRead{{}, why, false};
}

// The CRLF that ends a chunk's data.
ReadState readDataEnd(ByteSource& in) {
  std::string line;
  switch (readLine(in, line, 0)) {
    case LineRead::Complete:
      return ReadState::Complete;
    case LineRead::TooLong:
      return ReadState::Malformed;
    case LineRead::Ended:
      break;
  }
  return ReadState::Incomplete;
}

// trailer-section CRLF, after the last chunk.
ReadState readTrailers(ByteSource& in) {
  std::string line;
  for (std::size_t count = 0; count <= kMaxFields; ++count) {
    switch (readLine(in, line, kMaxFieldLine)) {
      case LineRead::Complete:
        if (line.empty()) return ReadState::Complete;
        break;
      case LineRead::TooLong:
        return ReadState::Malformed;
      case LineRead::Ended:
        return ReadState::Incomplete;
    }
  }
  return ReadState::Malformed;
}

}  // namespace

BodyRead readChunkedBody(ByteSource& in, std::size_t maxBytes) {
  BodyRead read;
  std::string line;
  for (;;) {
    const LineRead sizeLine = readLine(in, line, kMaxSizeLine);
    if (sizeLine == LineRead::Ended) return failed(ReadState::Incomplete);
    const auto size = sizeLine == LineRead::Complete ? chunkSize(line) : std::nullopt;
    if (!size) return failed(ReadState::Malformed);
    if (*size == 0) break;
    if (*size > maxBytes - read.bytes.size()) return failed(ReadState::TooLarge);
    if (!readExactly(in, read.bytes, static_cast<std::size_t>(*size))) {
      return failed(ReadState::Incomplete);
    }
    if (const ReadState end = readDataEnd(in); end != ReadState::Complete) return failed(end);
  }
  if (const ReadState end = readTrailers(in); end != ReadState::Complete) return failed(end);
  return read;
}

}  // namespace rapport::host
