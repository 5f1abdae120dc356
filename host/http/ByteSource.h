// The read the request-head parser (RequestHead) needs: byte by byte, for
// its lines. An interface so that the parser runs over the bytes a
// connection received (RequestReader) and over plain strings in tests.
//
// It never reads past what it returns: the bytes of a pipelined next request
// stay for the next exchange.
#pragma once

#include <cstddef>
#include <string>

namespace rapport::host {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // The next byte (0-255), or -1 at the end of the bytes.
  virtual int nextByte() = 0;
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

}  // namespace rapport::host
