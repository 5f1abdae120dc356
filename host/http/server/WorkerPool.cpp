#include "http/server/WorkerPool.h"

#include <stdexcept>
#include <utility>

namespace rapport::host {

WorkerPool::WorkerPool(std::size_t threads, std::size_t maxQueued) : maxQueued_(maxQueued) {
  if (threads < 1) throw std::invalid_argument("server.threads must be at least 1");
  if (maxQueued < 1) throw std::invalid_argument("server.max_queued must be at least 1");
  running_ = threads;
  threads_.reserve(threads);
  for (std::size_t i = 0; i < threads; ++i) {
    sleepers_.push_back(std::make_unique<Sleeper>());
    threads_.emplace_back([this, sleeper = sleepers_.back().get()] { work(*sleeper); });
  }
}

WorkerPool::~WorkerPool() {
  stop();
  if (!detached_) join(std::chrono::milliseconds::max());
}

bool WorkerPool::submit(Task task) {
  Sleeper* wake = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_ || queue_.size() >= maxQueued_) return false;
    queue_.push_back(std::move(task));
    // A wake only when a worker sleeps: a busy pool takes the task next.
    if (!idle_.empty()) {
      wake = idle_.back();
      idle_.pop_back();
    }
  }
  if (wake) wake->wake.release();
  return true;
}

void WorkerPool::stop() {
  std::vector<Sleeper*> sleeping;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    sleeping.swap(idle_);
  }
  for (Sleeper* sleeper : sleeping) sleeper->wake.release();
}

bool WorkerPool::join(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  const bool done = timeout == std::chrono::milliseconds::max()
                        ? (exited_.wait(lock, [this] { return running_ == 0; }), true)
                        : exited_.wait_for(lock, timeout, [this] { return running_ == 0; });
  detached_ = !done;
  lock.unlock();
  for (std::thread& thread : threads_) {
    if (!thread.joinable()) continue;
    if (done) {
      thread.join();
    } else {
      thread.detach();
    }
  }
  return done;
}

void WorkerPool::work(Sleeper& self) {
  for (;;) {
    Task task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (queue_.empty()) {
        if (stopping_) {
          --running_;
          exited_.notify_all();
          return;
        }
        // Asleep until a submit (or the stop) picks this worker.
        idle_.push_back(&self);
        lock.unlock();
        self.wake.acquire();
        continue;
      }
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

}  // namespace rapport::host
