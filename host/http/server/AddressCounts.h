// Open connections per client address, for server.max_connections_per_address.
// Off (no map, no lock) when the cap is 0, the default: behind a reverse
// proxy every client has the proxy's address.
//
// Threading: any thread (one mutex; taken once per accept and per close).
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>

namespace rapport::host {

class AddressCounts {
 public:
  explicit AddressCounts(std::size_t cap) : cap_(cap) {}

  // Counts a new connection from `address`; false (not counted) when the
  // address already has `cap` open.
  bool tryAdd(const std::string& address);
  // Forgets one connection counted by tryAdd.
  void remove(const std::string& address);
  bool enabled() const { return cap_ > 0; }

 private:
  std::size_t cap_;
  std::mutex mutex_;
  std::unordered_map<std::string, std::size_t> open_;
};

}  // namespace rapport::host
