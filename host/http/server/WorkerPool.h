// The threads that run requests: a fixed number of workers taking complete
// requests from one bounded queue. Handlers block (database, argon2, mail),
// so they never run on an I/O thread (EventLoop); an I/O thread only
// submits.
//
// A task wakes the worker that went idle last (its stack and caches are
// the warmest), not whichever the condition variable picks.
//
// Threading: submit() from any thread; stop() from one thread, once.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <semaphore>
#include <thread>
#include <vector>

namespace rapport::host {

class WorkerPool {
 public:
  using Task = std::function<void()>;

  // Throws std::invalid_argument for threads or maxQueued below 1.
  WorkerPool(std::size_t threads, std::size_t maxQueued);
  // stop(), then joins.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Queues `task`; false (and `task` is dropped) when maxQueued tasks are
  // already waiting or the pool is stopping. A task must not throw.
  bool submit(Task task);
  // Accepts no further task; the queued ones still run. Returns at once.
  void stop();
  // Waits for every worker to finish; false when `timeout` ran out first
  // (a task still runs: the threads are then detached and the caller must
  // keep what they use alive).
  bool join(std::chrono::milliseconds timeout);

 private:
  // One per worker: what wakes it.
  struct Sleeper {
    std::binary_semaphore wake{0};
  };

  void work(Sleeper& self);

  std::size_t maxQueued_;
  std::mutex mutex_;
  std::condition_variable exited_;  // a worker exited
  std::deque<Task> queue_;
  std::vector<std::unique_ptr<Sleeper>> sleepers_;
  std::vector<Sleeper*> idle_;  // workers asleep, the last to sleep at the back
  std::size_t running_ = 0;     // workers not yet exited
  bool stopping_ = false;
  bool detached_ = false;  // join() timed out: the threads run on, unowned
  std::vector<std::thread> threads_;
};

}  // namespace rapport::host
