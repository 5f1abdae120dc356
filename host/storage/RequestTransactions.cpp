#include "storage/RequestTransactions.h"

#include <utility>

namespace rapport::host {

namespace {
thread_local RequestTransactions* armed = nullptr;
}  // namespace

RequestTransactions::RequestTransactions(Hooks hooks) : hooks_(std::move(hooks)), previous_(armed) {
  armed = this;
}

RequestTransactions::~RequestTransactions() {
  armed = previous_;
}

RequestTransactions::Hooks RequestTransactions::forNextTransaction() {
  if (armed == nullptr) return {};
  Hooks hooks{.first = {}, .beforeCommit = armed->hooks_.beforeCommit};
  if (!armed->firstTaken_) {
    armed->firstTaken_ = true;
    hooks.first = armed->hooks_.first;
  }
  return hooks;
}

}  // namespace rapport::host
