// Bounds how many argon2 computations run at once (auth.argon2.max_concurrent).
//
// Each argon2id hash or verification holds auth.argon2.memory_kib of memory
// (19 MiB by default) and a core for tens of milliseconds. Without a bound,
// a burst of logins (or of register, password change, reset) on a server
// with 64 worker threads allocates 64 x 19 MiB and slows every request. The
// gate lets `maxConcurrent` computations run; the others wait in line up to
// `queueTimeout`, then give up with 503 and Retry-After: 1 (the pipeline's
// answer for a busy server: the request changed nothing and may be sent
// again).
//
//   HashingGate::Permit permit = gate.enter();  // may throw rapport::Error 503
//   ... argon2 ...                              // released when permit dies
//
// Threading: thread-safe. Waiters are woken in no particular order.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>

namespace rapport::host::accounts::passwords {

class HashingGate {
 public:
  // While held, one computation may run. Movable, not copyable.
  class Permit {
   public:
    Permit() = default;
    explicit Permit(HashingGate* gate) : gate_(gate) {}
    Permit(Permit&& other) noexcept : gate_(other.gate_) { other.gate_ = nullptr; }
    Permit& operator=(Permit&& other) noexcept;
    Permit(const Permit&) = delete;
    Permit& operator=(const Permit&) = delete;
    ~Permit() { release(); }
    void release();

   private:
    HashingGate* gate_ = nullptr;
  };

  // `maxConcurrent` 0 means the number of cores (at least 1).
  HashingGate(std::size_t maxConcurrent, std::chrono::milliseconds queueTimeout);
  HashingGate(const HashingGate&) = delete;
  HashingGate& operator=(const HashingGate&) = delete;

  // A permit, at once or after waiting; throws rapport::Error 503 with
  // Retry-After 1 when none came free within the queue timeout.
  Permit enter();

  std::size_t capacity() const { return capacity_; }
  std::size_t running() const;
  std::size_t waiting() const;

 private:
  void leave();

  const std::size_t capacity_;
  const std::chrono::milliseconds queueTimeout_;
  mutable std::mutex mutex_;
  std::condition_variable freed_;
  std::size_t running_ = 0;
  std::size_t waiting_ = 0;
};

}  // namespace rapport::host::accounts::passwords
