// Fuzzes the chunked-body decoder (readChunkedBody). The first input byte
// picks the size cap and how many bytes each read hands out; the rest is the
// body as it arrives after the head.
//
// Properties, beyond "no crash, no sanitizer report":
// - it never returns more bytes than it consumed, nor more than the cap;
// - only a complete body leaves the connection usable, and a failed one
//   returns no data;
// - Incomplete only when the stream really ended;
// - the result does not depend on how the bytes arrive (one at a time gives
//   the same answer and stops at the same byte);
// - a complete body ends right after an LF, and its data re-encoded as one
//   chunk decodes to the same data.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>

#include "FuzzSupport.h"
#include "http/ChunkedBody.h"

namespace {

using rapport::host::BodyRead;
using rapport::host::ReadState;

constexpr std::size_t kBlocks[] = {1,  2,    3,     7,
                                   64, 4096, 65536, std::numeric_limits<std::size_t>::max()};
constexpr std::size_t kCaps[] = {0, 1, 5, 16, 100, 1024, 65536, 1 << 24};

std::string asOneChunk(const std::string& data) {
  char size[32];
  std::snprintf(size, sizeof size, "%zx", data.size());
  if (data.empty()) return "0\r\n\r\n";
  return std::string(size) + "\r\n" + data + "\r\n0\r\n\r\n";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t block = kBlocks[data[0] & 7];
  const std::size_t cap = kCaps[(data[0] >> 3) & 7];
  const std::string_view body = rapport::fuzz::asText(data + 1, size - 1);

  rapport::fuzz::BytesSource source(body, block);
  const BodyRead read = rapport::host::readChunkedBody(source, cap);
  const std::size_t consumed = source.consumed();

  FUZZ_CHECK(consumed <= body.size());
  FUZZ_CHECK(read.bytes.size() <= consumed);
  FUZZ_CHECK(read.bytes.size() <= cap);
  FUZZ_CHECK(read.state == ReadState::Complete || read.state == ReadState::TooLarge ||
             read.state == ReadState::Incomplete || read.state == ReadState::Malformed);
  FUZZ_CHECK(read.consumed == (read.state == ReadState::Complete));
  if (read.state != ReadState::Complete) FUZZ_CHECK(read.bytes.empty());
  if (read.state == ReadState::Incomplete) FUZZ_CHECK(consumed == body.size());

  // Byte by byte: the same answer, stopping at the same place.
  rapport::fuzz::BytesSource slow(body, 1);
  const BodyRead again = rapport::host::readChunkedBody(slow, cap);
  FUZZ_CHECK(again.state == read.state && again.bytes == read.bytes);
  FUZZ_CHECK(slow.consumed() == consumed);

  if (read.state != ReadState::Complete) return 0;
  FUZZ_CHECK(consumed >= 3 && body[consumed - 1] == '\n');  // at least "0\n\n"
  const std::string encoded = asOneChunk(read.bytes);
  rapport::fuzz::BytesSource canonical(encoded, block);
  const BodyRead decoded = rapport::host::readChunkedBody(canonical, cap);
  FUZZ_CHECK(decoded.state == ReadState::Complete && decoded.bytes == read.bytes);
  FUZZ_CHECK(canonical.consumed() == encoded.size());
  return 0;
}
