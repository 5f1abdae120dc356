#include "accounts/passwords/HashingGate.h"

#include <algorithm>
#include <thread>

#include "rapport/error.h"

namespace rapport::host::accounts::passwords {

HashingGate::Permit& HashingGate::Permit::operator=(Permit&& other) noexcept {
  if (this != &other) {
    release();
    gate_ = other.gate_;
    other.gate_ = nullptr;
  }
  return *this;
}

void HashingGate::Permit::release() {
  if (gate_) gate_->leave();
  gate_ = nullptr;
}

HashingGate::HashingGate(std::size_t maxConcurrent, std::chrono::milliseconds queueTimeout)
    : capacity_(maxConcurrent > 0 ? maxConcurrent
                                  : std::max<std::size_t>(1, std::thread::hardware_concurrency())),
      queueTimeout_(queueTimeout) {}

HashingGate::Permit HashingGate::enter() {
  std::unique_lock lock(mutex_);
  if (running_ >= capacity_) {
    ++waiting_;
    const bool admitted =
        freed_.wait_for(lock, queueTimeout_, [this] { return running_ < capacity_; });
    --waiting_;
    if (!admitted) {
      // The same answer as a database that stayed busy: nothing changed,
      // the client may try again shortly.
      throw rapport::Error(503, rapport::Error::genericMessage(503)).withHeader("Retry-After", "1");
    }
  }
  ++running_;
  return Permit(this);
}

void HashingGate::leave() {
  {
    std::lock_guard lock(mutex_);
    --running_;
  }
  freed_.notify_one();
}

std::size_t HashingGate::running() const {
  std::lock_guard lock(mutex_);
  return running_;
}

std::size_t HashingGate::waiting() const {
  std::lock_guard lock(mutex_);
  return waiting_;
}

}  // namespace rapport::host::accounts::passwords
