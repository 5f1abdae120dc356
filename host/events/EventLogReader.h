// rapport::EventLog (Host::eventLog, GET /v1/events, webhook replays): a
// company's committed events in sequence order, and whether the retention
// already removed some of those a query asks for (docs/events.md).
//
// Stateless: one reader serves every thread.
#pragma once

#include "rapport/events.h"

namespace rapport::host {

class EventLogReader final : public rapport::EventLog {
 public:
  static constexpr std::size_t kMaxLimit = 1000;

  EventPage read(Queryable& db, const std::string& companyId,
                 const EventQuery& query) const override;
};

}  // namespace rapport::host
