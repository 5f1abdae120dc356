// Frames one HTTP/1.1 request out of the bytes a connection has received so
// far, however they were split: the event-driven front end (http/server)
// feeds it whatever each read brought and dispatches the request once it is
// whole. No byte is parsed twice on the body path (ChunkedDecoder is
// incremental, a fixed body is only counted), and the head is parsed once
// it can be decided, not at every read (see advance()).
//
// The rules are the parsers' (RequestHead, BodyPlan's planBody,
// ChunkedDecoder): this class only decides when they have enough bytes.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "http/BodyPlan.h"
#include "http/ChunkedDecoder.h"
#include "http/Exchange.h"
#include "http/RequestHead.h"

namespace rapport::host {

class RequestReader {
 public:
  enum class Step {
    NeedMore,  // read more bytes and call again
    Ready,     // take() the request
    Nothing,   // the stream ended with no byte of a request: the client is done
  };

  // What the connection does after answering the request take() returned.
  struct Framing {
    bool clientKeepsAlive = false;  // the client did not ask to close
    bool consumed = true;           // the connection is positioned at the next request
    bool headRequest = false;       // HEAD: the answer has no body
  };

  explicit RequestReader(std::size_t maxBodyBytes);

  // Looks at `buffer`, the connection's received bytes from `offset` on
  // (bytes before `offset` belong to earlier requests), and advances
  // `offset` past the bytes this request took when Ready. `ended`: the
  // client closed its side, no more bytes will come (a request cut short is
  // answered 400, as the head parser and BodyPlan define).
  Step advance(const std::string& buffer, std::size_t& offset, bool ended);

  // True once, right after the head of a request whose body will be read
  // arrived with "Expect: 100-continue": the caller sends the interim answer.
  bool takeContinue();
  // Whether any byte of this request has arrived (a time-out is then 408,
  // otherwise a silent close).
  bool started() const { return started_; }
  // Whether the head is complete and the body is being read.
  bool readingBody() const { return stage_ == Stage::Body; }

  // After Ready: the request (clientAddress left empty) and its framing.
  // The reader is then ready for the next request.
  RawRequest take(Framing& framing);

 private:
  enum class Stage { Head, Body, Done };

  Step readHead(const std::string& buffer, std::size_t& offset, bool ended);
  bool headDecidable(const std::string& buffer, std::size_t offset);
  Step readBody(const std::string& buffer, std::size_t& offset, bool ended);
  Step finish(ReadState state, bool consumed);

  std::size_t maxBodyBytes_;
  Stage stage_ = Stage::Head;
  bool started_ = false;
  // Head scanning: bytes before scanned_ (from the request's start) hold
  // no head end; lines_ counts the LFs seen in them.
  std::size_t scanned_ = 0;
  std::size_t lines_ = 0;
  std::size_t lineStart_ = 0;
  std::size_t contentLines_ = 0;  // lines that were not empty
  RequestHead head_;
  BodyPlan plan_;
  std::optional<ChunkedDecoder> chunked_;
  bool continuePending_ = false;
  RawRequest request_;
  Framing framing_;
};

}  // namespace rapport::host
