// Closing a socket that still holds unread request bytes makes the kernel
// send a reset, which can destroy the response before the client reads it.
// So, before closing a connection whose request was not read to its end:
// finish sending, then read and discard what the client is still sending,
// within small bounds, as nginx's lingering close does.
#pragma once

namespace Poco::Net {
class StreamSocket;
}

namespace rapport::host {

// Shuts the sending side down and drains the socket for at most 2 s (0.5 s
// of silence, 64 MiB). Never throws.
void lingeringClose(Poco::Net::StreamSocket& socket);

}  // namespace rapport::host
