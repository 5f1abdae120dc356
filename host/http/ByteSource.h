// The reads the HTTP/1.1 parsers (RequestHead, BodyReader, ChunkedBody) need
// from a connection: byte by byte for the framing lines, in blocks for body
// data. An interface so that the parsers can be tested on plain strings.
//
// Neither call ever reads past what it returns: the bytes of a pipelined
// next request stay in the connection for the next exchange.
#pragma once

#include <cstddef>
#include <string>

namespace rapport::host {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // The next byte (0-255), or -1 at the end of the stream. Throws
  // Poco::Exception when the connection times out or breaks.
  virtual int nextByte() = 0;
  // Up to `length` bytes (at least one unless at the end); 0 at the end of
  // the stream. Throws like nextByte().
  virtual std::size_t readSome(char* buffer, std::size_t length) = 0;
};

enum class LineRead {
  Complete,  // `line` holds the line without its CRLF (see LineEnds for a bare LF)
  TooLong,   // more than `limit` bytes before the LF; the rest is left unread
  Ended,     // the stream ended before the LF
};

// What ends a line. RFC 9112 §2.2 lets a recipient accept a bare LF as a
// line end, and lets a server refuse it: the request head refuses it, since
// a proxy that splits lines otherwise than we do is how requests get
// smuggled.
enum class LineEnds {
  CrlfOrLf,  // a bare LF ends the line like a CRLF
  CrlfOnly,  // a line ended by a bare LF keeps that LF, for the caller to refuse
};

// One line terminated by LF, its CR removed. A CR anywhere else stays in
// `line`, for the caller's syntax check to refuse.
LineRead readLine(ByteSource& in, std::string& line, std::size_t limit,
                  LineEnds ends = LineEnds::CrlfOrLf);

// Appends exactly `length` bytes to `out`; false when the stream ends first.
bool readExactly(ByteSource& in, std::string& out, std::size_t length);

}  // namespace rapport::host
