// The caps on synchronous attempts (docs/modules/webhooks.md, "Fairness"):
// a ping and a manual retry make their one attempt on the request's worker
// thread (decisions §8), for up to `webhooks.timeout`. So that no company
// can hold the server's workers with them, at most `perCompany` such
// attempts of one company, and `total` of the whole instance, run at once;
// the routes answer 429 with Retry-After beyond either, before writing
// anything.
//
// Thread-safe; slots are given back when the Slot ends.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

namespace rapport::webhooks {

class SyncAttempts {
 public:
  // A running attempt's place; gives it back when it ends.
  class Slot {
   public:
    Slot(SyncAttempts* owner, std::string company) : owner_(owner), company_(std::move(company)) {}
    Slot(Slot&& other) noexcept
        : owner_(std::exchange(other.owner_, nullptr)), company_(std::move(other.company_)) {}
    Slot& operator=(Slot&&) = delete;
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    ~Slot() {
      if (owner_ != nullptr) owner_->give(company_);
    }

   private:
    SyncAttempts* owner_;
    std::string company_;
  };

  SyncAttempts(int perCompany, int total) : perCompany_(perCompany), total_(total) {}

  // A slot for `company`, or nullopt when it or the instance is at its cap.
  std::optional<Slot> tryTake(const std::string& company) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (running_ >= total_) return std::nullopt;
    int& mine = byCompany_[company];
    if (mine >= perCompany_) return std::nullopt;
    ++mine;
    ++running_;
    return std::optional<Slot>(std::in_place, this, company);
  }

  int running() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return running_;
  }

 private:
  void give(const std::string& company) {
    std::lock_guard<std::mutex> lock(mutex_);
    --running_;
    const auto it = byCompany_.find(company);
    if (it != byCompany_.end() && --it->second <= 0) byCompany_.erase(it);
  }

  int perCompany_;
  int total_;
  mutable std::mutex mutex_;
  int running_ = 0;
  std::map<std::string, int> byCompany_;
};

}  // namespace rapport::webhooks
