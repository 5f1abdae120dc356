#include "log/RequestScope.h"

#include <utility>

namespace rapport::host {
namespace {

const std::string kNone;
const rapport::Actor kSystem;
thread_local const RequestScope* tCurrent = nullptr;

}  // namespace

RequestScope::RequestScope(std::string requestId, rapport::Actor actor)
    : id_(std::move(requestId)), actor_(std::move(actor)), previous_(tCurrent) {
  tCurrent = this;
}

RequestScope::~RequestScope() {
  tCurrent = previous_;
}

const std::string& RequestScope::current() {
  return tCurrent ? tCurrent->id_ : kNone;
}

const rapport::Actor& RequestScope::actor() {
  return tCurrent ? tCurrent->actor_ : kSystem;
}

}  // namespace rapport::host
