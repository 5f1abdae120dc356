#include "storage/WriterGate.h"

#include "rapport/db.h"

namespace rapport::host {

WriterGate::WriterGate(bool enabled, std::chrono::milliseconds timeout)
    : enabled_(enabled), timeout_(timeout) {}

WriterGate::Pass WriterGate::enter() {
  if (!enabled_) return Pass();
  if (owner_.load() == std::this_thread::get_id()) {
    throw DbError(DbError::Kind::Busy,
                  "database is locked (a write beside this thread's own open transaction)");
  }
  if (!mutex_.try_lock_for(timeout_)) {
    throw DbError(DbError::Kind::Busy, "database is locked (waited for another writer)");
  }
  owner_.store(std::this_thread::get_id());
  return Pass(this);
}

void WriterGate::leave() {
  owner_.store(std::thread::id());
  mutex_.unlock();
}

}  // namespace rapport::host
