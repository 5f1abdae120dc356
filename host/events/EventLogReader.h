// rapport::EventLog (Host::eventLog, GET /v1/events, webhook replays): a
// company's committed events in sequence order, and whether the retention
// already removed some of those a query asks for (docs/events.md).
//
// One reader serves every thread. On PostgreSQL it first catches up with the
// event numbering (EventNumbering::catchUp): every event committed before
// the read began has its number.
#pragma once

#include <functional>

#include "rapport/events.h"

namespace rapport::host {

class EventLogReader final : public rapport::EventLog {
 public:
  static constexpr std::size_t kMaxLimit = 1000;

  EventPage read(Queryable& db, const std::string& companyId,
                 const EventQuery& query) const override;

  // Called at the start of every read (set once, at start-up).
  void catchUpWith(std::function<void()> catchUp) { catchUp_ = std::move(catchUp); }

 private:
  std::function<void()> catchUp_;
};

}  // namespace rapport::host
