#include "events/EventNumbering.h"

#include <string>
#include <utility>

#include "events/EventBus.h"
#include "log/Log.h"
#include "storage/SqlDatabase.h"

namespace rapport::host {

void EventNumbering::committed() {
  rapport::JobHandle waker;
  {
    std::lock_guard lock(wakerMutex_);
    waker = waker_;
  }
  if (waker) {
    waker->wake();
  } else {
    catchUp();
  }
}

void EventNumbering::wakeWith(rapport::JobHandle handle) {
  std::lock_guard lock(wakerMutex_);
  waker_ = std::move(handle);
}

void EventNumbering::catchUp() {
  std::unique_lock lock(mutex_);
  const std::uint64_t ticket = ++requested_;
  while (served_ < ticket) {
    if (running_) {
      passEnded_.wait(lock);
      continue;
    }
    // Every call counted so far began before this pass, so the pass sees
    // every event committed before any of them.
    running_ = true;
    const std::uint64_t covers = requested_;
    lock.unlock();
    pass();
    lock.lock();
    served_ = covers;
    running_ = false;
    passEnded_.notify_all();
  }
}

std::int64_t EventNumbering::pass() noexcept {
  try {
    const Result numbered = db_.query("SELECT events_number() AS numbered");
    return numbered.empty() ? 0 : numbered.rows[0].i64("numbered");
  } catch (const std::exception& e) {
    // The writes are committed; their events wait for the next pass.
    log::warn("events not numbered yet; the next pass will", {{"error", e.what()}});
    return 0;
  }
}

rapport::Job EventNumbering::numberingJob() {
  return {.name = "events.numbering",
          .interval = std::chrono::seconds(1),
          .run = [this](rapport::JobContext&) { pass(); },
          .concurrency = 1};
}

std::shared_ptr<EventNumbering> connectEventLog(SqlDatabase& db, const EventBus& bus) {
  db.setEmitHook(
      [&bus](Tx& tx, const std::string& type, const Json& data) { bus.record(tx, type, data); });
  if (db.dialect() != Dialect::PostgreSQL) return nullptr;
  auto numbering = std::make_shared<EventNumbering>(db);
  db.setCommittedEventsHook([numbering] { numbering->committed(); });
  return numbering;
}

}  // namespace rapport::host
