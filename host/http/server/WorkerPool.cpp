#include "http/server/WorkerPool.h"

#include <stdexcept>
#include <utility>

namespace rapport::host {

WorkerPool::WorkerPool(std::size_t threads, std::size_t maxQueued) : maxQueued_(maxQueued) {
  if (threads < 1) throw std::invalid_argument("server.threads must be at least 1");
  if (maxQueued < 1) throw std::invalid_argument("server.max_queued must be at least 1");
  running_ = threads;
  threads_.reserve(threads);
  for (std::size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
}

WorkerPool::~WorkerPool() {
  stop();
  if (!detached_) join(std::chrono::milliseconds::max());
}

bool WorkerPool::submit(Task task) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (stopping_ || queue_.size() >= maxQueued_) return false;
  queue_.push_back(std::move(task));
  // A wake only when a worker sleeps: a busy pool takes the task next.
  const bool wake = waiting_ > 0;
  lock.unlock();
  if (wake) wake_.notify_one();
  return true;
}

void WorkerPool::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
}

bool WorkerPool::join(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  const bool done = timeout == std::chrono::milliseconds::max()
                        ? (idle_.wait(lock, [this] { return running_ == 0; }), true)
                        : idle_.wait_for(lock, timeout, [this] { return running_ == 0; });
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

void WorkerPool::work() {
  for (;;) {
    Task task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      ++waiting_;
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      --waiting_;
      if (queue_.empty()) {
        --running_;
        idle_.notify_all();
        return;
      }
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

}  // namespace rapport::host
