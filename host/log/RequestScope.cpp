#include "log/RequestScope.h"

#include <utility>

namespace rapport::host {
namespace {

const std::string kNone;
thread_local const std::string* tCurrent = nullptr;

}  // namespace

RequestScope::RequestScope(std::string requestId) : id_(std::move(requestId)), previous_(tCurrent) {
  tCurrent = &id_;
}

RequestScope::~RequestScope() {
  tCurrent = previous_;
}

const std::string& RequestScope::current() {
  return tCurrent ? *tCurrent : kNone;
}

}  // namespace rapport::host
