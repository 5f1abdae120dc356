#include "events/EventNumbering.h"

#include <string>
#include <utility>

#include "events/EventBus.h"
#include "log/Log.h"
#include "storage/SqlDatabase.h"

namespace rapport::host {

void EventNumbering::afterCommit() {
  std::unique_lock lock(mutex_);
  const std::uint64_t ticket = ++requested_;
  while (served_ < ticket) {
    if (running_) {
      passEnded_.wait(lock);
      continue;
    }
    // Every call counted so far committed before it was counted, so the
    // pass about to begin sees its events.
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

std::int64_t EventNumbering::sweep() {
  return pass();
}

std::int64_t EventNumbering::pass() noexcept {
  try {
    const Result numbered = db_.query("SELECT events_number() AS numbered");
    return numbered.empty() ? 0 : numbered.rows[0].i64("numbered");
  } catch (const std::exception& e) {
    // The writes are committed; their events wait for the sweep (a second).
    log::warn("events not numbered yet; the sweep will", {{"error", e.what()}});
    return 0;
  }
}

rapport::Job EventNumbering::sweepJob() {
  return {.name = "events.numbering",
          .interval = std::chrono::seconds(1),
          .run =
              [this](rapport::JobContext&) {
                const std::int64_t numbered = sweep();
                if (numbered > 0) {
                  log::info("unnumbered events numbered", {{"count", std::to_string(numbered)}});
                }
              },
          .concurrency = 1};
}

std::shared_ptr<EventNumbering> connectEventLog(SqlDatabase& db, const EventBus& bus) {
  db.setEmitHook(
      [&bus](Tx& tx, const std::string& type, const Json& data) { bus.record(tx, type, data); });
  if (db.dialect() != Dialect::PostgreSQL) return nullptr;
  auto numbering = std::make_shared<EventNumbering>(db);
  db.setCommittedEventsHook([numbering] { numbering->afterCommit(); });
  return numbering;
}

}  // namespace rapport::host
