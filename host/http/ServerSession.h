// Poco's HTTPServerSession with its buffered reads opened up to our parsers.
//
// The session keeps what Poco does well: the keep-alive wait between
// requests (hasMoreRequests: the first request within the receive timeout,
// later ones within the keep-alive timeout, at most maxKeepAliveRequests),
// and a read buffer that never swallows a pipelined next request. Its
// byte-level reads (get, read) are protected in Poco, meant for Poco's own
// stream classes; we parse the request ourselves (RequestHead, ChunkedBody),
// so this class makes them public as a ByteSource.
#pragma once

#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerSession.h>

#include <string_view>

#include "http/ByteSource.h"

namespace rapport::host {

class ServerSession final : public Poco::Net::HTTPServerSession, public ByteSource {
 public:
  // Sets the socket's receive and send time-outs to params' timeout.
  ServerSession(const Poco::Net::StreamSocket& socket, Poco::Net::HTTPServerParams::Ptr params);

  int nextByte() override;
  std::size_t readSome(char* buffer, std::size_t length) override;

  // Writes all of `bytes`. Throws Poco::Exception when the peer is gone or
  // stops reading for longer than the send time-out.
  void sendAll(std::string_view bytes);
};

}  // namespace rapport::host
