#include "http/server/AddressCounts.h"

namespace rapport::host {

bool AddressCounts::tryAdd(const std::string& address) {
  if (cap_ == 0) return true;
  std::lock_guard<std::mutex> lock(mutex_);
  std::size_t& count = open_[address];
  if (count >= cap_) return false;
  ++count;
  return true;
}

void AddressCounts::remove(const std::string& address) {
  if (cap_ == 0) return;
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = open_.find(address);
  if (it == open_.end()) return;
  // Dropped at zero, so that the map holds only addresses with connections.
  if (--it->second == 0) open_.erase(it);
}

}  // namespace rapport::host
