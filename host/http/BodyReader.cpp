#include "http/BodyReader.h"

#include <Poco/Exception.h>
#include <Poco/Net/HTTPServerRequest.h>

#include <algorithm>
#include <istream>

namespace rapport::host {
namespace {

constexpr std::size_t kBlock = 64 * 1024;

bool expectsBody(const std::string& method) {
  return method == "POST" || method == "PUT" || method == "PATCH";
}

// Reads at most `limit` bytes. istream::read blocks until it has all it asked
// for, so it is never asked for more than the client may still send.
BodyRead readUpTo(std::istream& in, std::size_t limit) {
  BodyRead read;
  std::size_t total = 0;
  while (total < limit) {
    const std::size_t want = std::min(kBlock, limit - total);
    read.bytes.resize(total + want);
    in.read(read.bytes.data() + total, static_cast<std::streamsize>(want));
    total += static_cast<std::size_t>(in.gcount());
    if (static_cast<std::size_t>(in.gcount()) < want) break;
  }
  read.bytes.resize(total);
  return read;
}

BodyRead readFixed(Poco::Net::HTTPServerRequest& request, std::size_t maxBytes) {
  const auto length = request.getContentLength64();
  if (length < 0 || static_cast<std::uint64_t>(length) > maxBytes) {
    return BodyRead{{}, BodyState::TooLarge, false};
  }
  BodyRead read = readUpTo(request.stream(), static_cast<std::size_t>(length));
  if (read.bytes.size() < static_cast<std::size_t>(length)) {
    return BodyRead{{}, BodyState::Incomplete, false};
  }
  return read;
}

BodyRead readChunked(Poco::Net::HTTPServerRequest& request, std::size_t maxBytes) {
  std::istream& in = request.stream();
  BodyRead read = readUpTo(in, maxBytes + 1);
  if (read.bytes.size() > maxBytes) return BodyRead{{}, BodyState::TooLarge, false};
  // A short read ends either at the last chunk (eof, clean) or at an error.
  if (!in.eof() || in.bad()) return BodyRead{{}, BodyState::Incomplete, false};
  return read;
}

}  // namespace

BodyRead readBody(Poco::Net::HTTPServerRequest& request, std::size_t maxBytes) {
  try {
    if (request.getChunkedTransferEncoding()) return readChunked(request, maxBytes);
    if (request.hasContentLength()) return readFixed(request, maxBytes);
  } catch (const Poco::Exception&) {
    // Bad chunk syntax, a receive time-out or a reset mid-body.
    return BodyRead{{}, BodyState::Incomplete, false};
  }
  if (expectsBody(request.getMethod())) return BodyRead{{}, BodyState::LengthRequired, false};
  return BodyRead{};
}

}  // namespace rapport::host
