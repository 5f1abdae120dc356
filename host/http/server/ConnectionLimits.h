// The deadlines and limits every connection lives by (server.* keys; the
// README's table and docs/api-choices.md "Connections" say what each does).
#pragma once

#include <chrono>
#include <cstddef>

namespace rapport::host {

struct ConnectionLimits {
  // Idle time between two requests on a keep-alive connection: then closed,
  // silently. Zero: no keep-alive (every answer closes its connection).
  std::chrono::milliseconds keepAlive{5000};
  // A whole request head, from the accept (first request) or from its first
  // byte (later ones): then 408 (a silent close if no byte came).
  std::chrono::milliseconds header{10000};
  // A whole request body, from the end of its head, however steadily its
  // bytes come: then 408. (At the defaults a body of max_body_bytes needs
  // about 100 KiB/s.)
  std::chrono::milliseconds body{10000};
  // Longest wait for the client to take the next response bytes: then closed.
  std::chrono::milliseconds send{10000};
  // Open connections; a new one beyond closes the least recently active
  // connection waiting for its client or, when there is none, the one
  // receiving a body at the lowest pace; it gets 503 when there is neither.
  std::size_t maxConnections = 10000;
  // Open connections per client address (0: no cap); beyond it 503.
  std::size_t maxPerAddress = 0;
  // Largest request body (decisions §1): 413 above.
  std::size_t maxBodyBytes = 1048576;
};

}  // namespace rapport::host
