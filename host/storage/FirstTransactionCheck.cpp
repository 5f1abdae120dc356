#include "storage/FirstTransactionCheck.h"

namespace rapport::host {

namespace {
thread_local FirstTransactionCheck* armed = nullptr;
}  // namespace

FirstTransactionCheck::FirstTransactionCheck(Check check)
    : check_(std::move(check)), previous_(armed) {
  armed = this;
}

FirstTransactionCheck::~FirstTransactionCheck() {
  armed = previous_;
}

FirstTransactionCheck::Check FirstTransactionCheck::take() {
  if (armed == nullptr || armed->taken_) return {};
  armed->taken_ = true;
  return std::move(armed->check_);
}

}  // namespace rapport::host
