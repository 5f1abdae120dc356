// What the front end counts: the connections open now, and every time a
// limit or a deadline ended one (so an operator sees a slowloris or a
// too-small max_connections before a user reports it). Logged at stop and
// once a minute when something changed; metrics will export them.
//
// Threading: every field is atomic; any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

namespace rapport::host {

struct ConnectionStats {
  std::atomic<std::int64_t> open{0};
  std::atomic<std::uint64_t> accepted{0};
  std::atomic<std::uint64_t> idleClosed{0};      // keep-alive or first-request wait ran out
  std::atomic<std::uint64_t> headerTimeouts{0};  // 408: the head came too slowly
  std::atomic<std::uint64_t> bodyTimeouts{0};    // 408: the body was not whole in time
  std::atomic<std::uint64_t> sendTimeouts{0};    // the client stopped reading
  std::atomic<std::uint64_t> shed{0};            // idle, closed for a new one over max_connections
  std::atomic<std::uint64_t> shedSlowBodies{0};  // the same, receiving the slowest body
  std::atomic<std::uint64_t> refusedFull{0};     // 503: max_connections and nothing to shed
  std::atomic<std::uint64_t> refusedPerAddress{0};  // 503: max_connections_per_address
  std::atomic<std::uint64_t> refusedBusy{0};        // 503: max_queued requests already wait
  std::atomic<std::uint64_t> acceptFailures{0};     // accept() failed (EMFILE, ...)

  // One info line `message` with every counter as a field.
  void log(std::string_view message) const;
  // Every counter but `open` summed: whether anything happened since.
  std::uint64_t events() const;
};

}  // namespace rapport::host
