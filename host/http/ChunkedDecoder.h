// Decodes a chunked request body (RFC 9112 §7.1) from bytes pushed to it in
// pieces, as an event-driven connection receives them: it never waits for
// more, keeps its place between pieces and looks at every byte once (running
// a pull parser from the start on every piece would cost O(n^2)).
//
//   chunked-body = *chunk last-chunk trailer-section CRLF
//   chunk        = chunk-size [ BWS ";" chunk-ext ] CRLF chunk-data CRLF
//
// Every line ends with CRLF, as in the request head. Unlike Poco's
// HTTPChunkedInputStream, it refuses a broken chunk rather than take it for
// the end of the body.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "http/Exchange.h"

namespace rapport::host {

// What is refused (Failed, failure() Malformed), at the byte that shows it:
// - a chunk size that is not 1 to 15 hex digits (15 stay below 2^60, far
//   over any cap), followed by anything but spaces or tabs (BWS), ";" and an
//   extension (ignored) or the CRLF; a control byte other than TAB in the
//   extension; a size line over 4096 bytes;
// - chunk data not followed by CRLF;
// - more than kMaxFields trailer lines, one over kMaxFieldLine bytes
//   (RequestHead.h); trailer fields are otherwise dropped unparsed;
// - a bare LF or a CR not followed by LF anywhere: RFC 9112 §2.2 lets a
//   server refuse them, and a proxy that splits lines otherwise than we do
//   is how requests get smuggled (the request head refuses them too).
// A chunk that would take the data over `maxBytes` is Failed with TooLarge
// right after its size line, before any of its data is read.
//
// Memory stays bounded by the data kept: lines are checked as they pass,
// never accumulated, and the body grows as data arrives, not by what a size
// line announces.
//
// A stream that ends (or times out) while feed() says NeedMore is an
// incomplete body; the decoder cannot know it, the caller does.
class ChunkedDecoder {
 public:
  enum class Status {
    NeedMore,  // every byte given was consumed; the body goes on
    Done,      // the last chunk and the trailer section were read
    Failed,    // failure() says why; the connection must close after the answer
  };

  // Keeps at most maxBytes of body data.
  explicit ChunkedDecoder(std::size_t maxBytes);

  // Consumes bytes from the front of `input` (input is advanced past them),
  // never past the end of the body: bytes of a pipelined next request stay
  // in `input`. Appends data to body(). Done: the last chunk and the trailer
  // section were read. Failed: failure() says why; no more bytes may be fed
  // (a later call consumes nothing and says Failed again, as a call after
  // Done says Done). NeedMore: all of `input` was consumed. Never throws
  // (except bad_alloc).
  Status feed(std::string_view& input);

  // Malformed or TooLarge after Failed; Complete otherwise.
  ReadState failure() const { return failure_; }
  // The data so far (all of it after Done); the caller may move it out.
  std::string& body() { return body_; }
  // Bytes consumed in total over all feeds (the failing byte included after
  // Failed).
  std::size_t consumed() const { return consumed_; }

 private:
  enum class Step {
    SizeDigits,  // chunk-size
    SizeSpace,   // BWS after the size
    Extension,   // ";" chunk-ext, ignored
    SizeLf,      // the LF after the size line's CR
    Data,        // chunk-data
    DataCr,      // the CRLF after the data
    DataLf,
    TrailerStart,  // a trailer field line or the final CRLF
    TrailerLine,   // a trailer field line, dropped
    TrailerLf,     // the LF after a trailer field line
    FinalLf,       // the LF of the empty line that ends the body
    Done,
    Failed,
  };

  // Takes one byte of a framing line (anything but data).
  void frame(char byte);
  void sizeDigit(char byte);
  void sizeSpace(char byte);
  void extension(char byte);
  void trailerStart(char byte);
  void trailerLine(char byte);
  // A byte counted into the current size or trailer line, refused past `limit`.
  bool countLineByte(std::size_t limit);
  // After the size line's CRLF: the next chunk's data, or the trailer.
  void startChunk();
  // Appends what `input` holds of the current chunk's data; returns its length.
  std::size_t takeData(std::string_view input);
  // `next` when `byte` is `expected`, Malformed otherwise.
  void expect(char byte, char expected, Step next);
  void fail(ReadState why);

  std::size_t maxBytes_;
  Step step_ = Step::SizeDigits;
  ReadState failure_ = ReadState::Complete;
  std::string body_;
  std::size_t consumed_ = 0;
  // The size being read, then the data of the chunk still to come.
  std::uint64_t chunkLeft_ = 0;
  std::size_t digits_ = 0;
  // Bytes of the current size or trailer line before its CR.
  std::size_t lineBytes_ = 0;
  std::size_t trailerLines_ = 0;
};

}  // namespace rapport::host
