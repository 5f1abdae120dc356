// The event bus: the catalogue of event types the enabled modules declare
// (GET /v1/webhooks/events, Host::events()) and the event log behind
// Tx::emit (docs/events.md).
//
// record() runs inside the emitting transaction: it writes the event row
// (its company's sequence number is taken in commit order: at once on
// SQLite, whose writers are serialised; after the commit on PostgreSQL, by
// EventNumbering's pass) and then calls every listener (the webhooks module inserts
// its deliveries there), so the change, its event and its deliveries commit together or not at all.
//
// Threading: declare() and listen() only during start-up; afterwards
// types(), find() and record() are called from many threads.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "rapport/db.h"
#include "rapport/events.h"

namespace rapport::host {

class EventBus final : public rapport::EventCatalogue {
 public:
  // Throws std::logic_error when another module already declared the type.
  void declare(EventType type);
  void listen(EventListener listener);

  std::vector<EventType> types() const override;
  std::optional<EventType> find(const std::string& type) const override;

  // Writes the event and notifies listeners within `tx`. Throws
  // std::logic_error for an undeclared type (a module bug, caught in tests).
  Event record(Tx& tx, const std::string& type, const Json& data) const;

  // Removes up to `batch` events created before `cutoffMicros`; returns how
  // many went (the retention job calls it until it returns less than batch).
  // In the same transaction, raises each company's horizon in
  // event_sequences (purged_through, purged_before: EventLogReader's
  // `truncated`).
  static std::int64_t purgeOlderThan(Database& db, std::int64_t cutoffMicros, int batch);

  // Drops listeners (before module libraries are released).
  void clear();

 private:
  std::map<std::string, EventType> types_;
  std::vector<EventListener> listeners_;
};

}  // namespace rapport::host
