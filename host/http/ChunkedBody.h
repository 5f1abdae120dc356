// Decodes a chunked request body (RFC 9112 §7.1) straight from the
// connection.
//
// This replaces Poco's HTTPChunkedInputStream, which ends the body quietly
// at a chunk size it cannot parse ("zz"): the stream just reports its end,
// and the request was judged as if its body were empty. Here a broken chunk
// is Malformed (400) and the connection closes.
#pragma once

#include <cstddef>

#include "http/BodyReader.h"
#include "http/ByteSource.h"

namespace rapport::host {

// Keeps at most `maxBytes` of data: past that TooLarge, without reading the
// rest. A chunk size that is not hexadecimal, a chunk not followed by CRLF
// or an over-long size or trailer line: Malformed. The stream ending before
// the last chunk and its trailer: Incomplete. Trailer fields are read and
// dropped. Throws Poco::Exception when the connection times out or breaks.
BodyRead readChunkedBody(ByteSource& in, std::size_t maxBytes);

}  // namespace rapport::host
