// Reads and checks one HTTP/1.1 request head, the request line and the
// header fields up to the empty line (RFC 9112 §2-5).
//
// This replaces Poco's parser (HTTPRequest::read, MessageHeader::read, run
// by HTTPServerRequestImpl's constructor), which is too lenient to be safe
// and too terse to answer well: it skips a field line without a colon, keeps
// the whitespace before a colon in the field name, accepts any version
// ("FOO", "HTTP/2.0") and folded lines, and reports every failure as one
// MessageException that Poco's connection answers with a bare 400.
// Here each refusal has its status (400, 414, 431, 505), and the connection
// answers it in the API's shape.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "http/ByteSource.h"
#include "http/Exchange.h"
#include "rapport/http.h"

namespace rapport::host {

// Limits: a request line over kMaxRequestLine bytes answers 414 (Poco
// allowed a 16 KiB URI); a field line over kMaxFieldLine, more than
// kMaxFields fields or a head over kMaxHeadBytes answers 431.
inline constexpr std::size_t kMaxRequestLine = 16 * 1024;
inline constexpr std::size_t kMaxFieldLine = 8 * 1024;
inline constexpr std::size_t kMaxFields = 100;
inline constexpr std::size_t kMaxHeadBytes = 64 * 1024;

struct RequestHead {
  std::string method;
  std::string target;        // as sent: origin form "/v1/x?a=1" or absolute form
  int minorVersion = 1;      // HTTP/1.<minorVersion>
  rapport::Headers headers;  // repeated fields joined with ", " (RFC 9110 §5.3)

  // HTTP/1.1 unless "Connection: close"; HTTP/1.0 only with "keep-alive".
  bool keepAlive() const;
  // "Expect: 100-continue" from an HTTP/1.1 client (RFC 9110 §10.1.1).
  bool expectsContinue() const;
};

struct HeadRead {
  enum class Outcome {
    Request,    // `head` is complete and well-formed
    NoRequest,  // the stream ended before the first byte: the client is done
    Refused,    // `refusal` says why; the connection must close after the answer
  };
  Outcome outcome = Outcome::NoRequest;
  RequestHead head;
  ReadState refusal = ReadState::Complete;
};

// Empty lines before the request line are skipped (RFC 9112 §2.2). Every
// line must end with CRLF: a bare LF is Malformed (RFC 9112 §2.2 allows the
// refusal; LF/CRLF disagreement between a proxy and us is a smuggling
// device). An HTTP/1.1 head without Host is HostMissing, one with two Host
// lines HostRepeated (RFC 9112 §3.2). A stream that ends inside the head is
// Malformed: a client that half-closed still reads the answer. Throws
// Poco::Exception when the connection times out or breaks.
HeadRead readRequestHead(ByteSource& in);

// `text` without leading and trailing spaces and tabs (RFC 9110 "OWS").
std::string_view trimOws(std::string_view text);
// Whether two tokens are equal, ignoring ASCII case ("chunked", "close").
bool sameToken(std::string_view a, std::string_view b);

}  // namespace rapport::host
