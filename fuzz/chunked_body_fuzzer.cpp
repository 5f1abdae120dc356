// Fuzzes the chunked-body decoder (ChunkedDecoder). The first input byte
// picks the size cap and the length of the pieces the bytes are fed in; the
// rest is the body as it arrives after the head.
//
// Properties, beyond "no crash, no sanitizer report":
// - it never consumes more than it was given, nor keeps more data than it
//   consumed or than the cap;
// - NeedMore only when every byte was consumed; Done right after a CRLF;
//   Failed only as Malformed or TooLarge; feed() moves its input exactly
//   past what it consumed, and after Done or Failed takes nothing more;
// - the outcome (status, failure, data, bytes consumed) does not depend on
//   how the bytes arrive: whole, one at a time or in the picked pieces;
// - the cap changes nothing but where TooLarge stops: without a cap the
//   decoder never says TooLarge, and gives the same outcome unless the
//   capped one was TooLarge, which stopped on a prefix of the same data;
//   a complete body passes with a cap of exactly its size and is TooLarge
//   with one byte less;
// - a complete body's data re-encoded as one chunk decodes to the same data,
//   the bytes after it left in the input.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "FuzzSupport.h"
#include "http/ChunkedDecoder.h"

namespace {

using rapport::host::ChunkedDecoder;
using rapport::host::ReadState;
using Status = ChunkedDecoder::Status;

constexpr std::size_t kWhole = std::numeric_limits<std::size_t>::max();
constexpr std::size_t kPieces[] = {1, 2, 3, 7, 64, 4096, 65536, kWhole};
constexpr std::size_t kCaps[] = {0, 1, 5, 16, 100, 1024, 65536, 1 << 24};

struct Decoded {
  Status status = Status::NeedMore;
  ReadState failure = ReadState::Complete;
  std::string body;
  std::size_t consumed = 0;

  bool operator==(const Decoded&) const = default;
};

// Feeds `bytes` in pieces of `piece` bytes until the decoder stops asking.
Decoded decode(std::string_view bytes, std::size_t cap, std::size_t piece) {
  ChunkedDecoder decoder(cap);
  Status status = Status::NeedMore;
  std::size_t start = 0;
  std::string_view input;
  do {
    input = bytes.substr(start, piece);
    start += input.size();
    status = decoder.feed(input);
    if (status == Status::NeedMore) FUZZ_CHECK(input.empty());
  } while (status == Status::NeedMore && start < bytes.size());
  // The input was advanced exactly past the bytes consumed.
  FUZZ_CHECK(decoder.consumed() == start - input.size());
  FUZZ_CHECK(input == bytes.substr(decoder.consumed(), input.size()));
  if (status != Status::NeedMore) {
    std::string_view more = bytes.substr(decoder.consumed());
    const std::size_t before = more.size();
    const std::size_t consumed = decoder.consumed();
    FUZZ_CHECK(decoder.feed(more) == status);
    FUZZ_CHECK(more.size() == before && decoder.consumed() == consumed);
  }
  return Decoded{status, decoder.failure(), std::move(decoder.body()), decoder.consumed()};
}

std::string asOneChunk(const std::string& data) {
  if (data.empty()) return "0\r\n\r\n";
  char size[32];
  std::snprintf(size, sizeof size, "%zx", data.size());
  return std::string(size) + "\r\n" + data + "\r\n0\r\n\r\n";
}

void checkConsistent(const Decoded& out, std::string_view bytes, std::size_t cap) {
  FUZZ_CHECK(out.consumed <= bytes.size());
  FUZZ_CHECK(out.body.size() <= out.consumed);
  FUZZ_CHECK(out.body.size() <= cap);
  switch (out.status) {
    case Status::NeedMore:
      FUZZ_CHECK(out.consumed == bytes.size() && out.failure == ReadState::Complete);
      break;
    case Status::Done:
      FUZZ_CHECK(out.failure == ReadState::Complete);
      FUZZ_CHECK(out.consumed >= 5 && bytes.substr(out.consumed - 2, 2) == "\r\n");
      break;
    case Status::Failed:
      FUZZ_CHECK(out.failure == ReadState::Malformed || out.failure == ReadState::TooLarge);
      FUZZ_CHECK(out.consumed >= 1);
      break;
  }
}

void checkCap(const Decoded& out, std::string_view bytes, std::size_t cap) {
  const Decoded unbounded = decode(bytes, kWhole, kWhole);
  FUZZ_CHECK(unbounded.failure != ReadState::TooLarge);
  if (out.failure == ReadState::TooLarge) {
    FUZZ_CHECK(unbounded.consumed >= out.consumed);
    FUZZ_CHECK(std::string_view(unbounded.body).substr(0, out.body.size()) == out.body);
  } else {
    FUZZ_CHECK(unbounded == out);
  }
  if (out.status != Status::Done) return;
  if (out.body.size() != cap) FUZZ_CHECK(decode(bytes, out.body.size(), kWhole) == out);
  if (out.body.empty()) return;
  const Decoded under = decode(bytes, out.body.size() - 1, kWhole);
  FUZZ_CHECK(under.status == Status::Failed && under.failure == ReadState::TooLarge);
  FUZZ_CHECK(under.consumed < out.consumed);
}

void checkReencoded(const Decoded& out, std::size_t cap, std::size_t piece) {
  const std::string encoded = asOneChunk(out.body);
  const std::string next = "GET / HTTP/1.1\r\n";
  const Decoded again = decode(encoded + next, cap, piece);
  FUZZ_CHECK(again.status == Status::Done && again.body == out.body);
  FUZZ_CHECK(again.consumed == encoded.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t piece = kPieces[data[0] & 7];
  const std::size_t cap = kCaps[(data[0] >> 3) & 7];
  const std::string_view bytes = rapport::fuzz::asText(data + 1, size - 1);

  const Decoded out = decode(bytes, cap, piece);
  checkConsistent(out, bytes, cap);
  FUZZ_CHECK(decode(bytes, cap, kWhole) == out);
  FUZZ_CHECK(decode(bytes, cap, 1) == out);
  checkCap(out, bytes, cap);
  if (out.status == Status::Done) checkReencoded(out, cap, piece);
  return 0;
}
