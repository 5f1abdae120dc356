// How a request's body is framed, decided from its head alone, with a hard
// size cap and never "until EOF" (Poco reads an unframed POST until the
// client closes, stack-facts). RequestReader then reads what the plan says:
// a fixed length, or chunks through ChunkedDecoder.
//
// Framing follows RFC 9112 §6: Transfer-Encoding "chunked" or a
// Content-Length. Anything ambiguous is refused rather than guessed (both
// headers, another transfer coding, Content-Lengths that disagree, a length
// that is not a number): a proxy in front could frame it otherwise, which is
// how requests get smuggled.
#pragma once

#include <cstddef>
#include <cstdint>

#include "http/Exchange.h"
#include "http/RequestHead.h"

namespace rapport::host {

struct BodyPlan {
  enum class Kind {
    None,     // no body (empty)
    Fixed,    // `length` bytes
    Chunked,  // chunked transfer coding
    Refused,  // `refusal` (TooLarge, Malformed): nothing is read
  };
  Kind kind = Kind::None;
  std::uint64_t length = 0;
  ReadState refusal = ReadState::Complete;

  // Whether bytes will be read: only then does "Expect: 100-continue" get
  // its interim answer.
  bool readsBytes() const { return kind == Kind::Chunked || (kind == Kind::Fixed && length > 0); }
};

// Content-Length over `maxBytes`: TooLarge. No framing at all: no body, for
// every method (RFC 9112 section 6.3: a bodiless POST reads as empty).
BodyPlan planBody(const RequestHead& head, std::size_t maxBytes);

}  // namespace rapport::host
