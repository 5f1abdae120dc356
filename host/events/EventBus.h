// The event bus: the catalogue of event types the enabled modules declare
// (GET /v1/webhooks/events) and the recorder behind Tx::emit.
//
// record() runs inside the emitting transaction: it writes the event row and
// then calls every listener (the webhooks module inserts its deliveries
// there), so the change, its event and its deliveries commit together or
// not at all.
//
// Threading: declare() and listen() only during start-up; afterwards
// catalogue(), known() and record() are called from many threads.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "rapport/db.h"
#include "rapport/events.h"

namespace rapport::host {

class EventBus {
 public:
  // Throws std::logic_error when another module already declared the type.
  void declare(EventType type);
  void listen(EventListener listener);

  // Declared types, sorted by type name.
  std::vector<EventType> catalogue() const;
  bool known(const std::string& type) const { return types_.count(type) > 0; }

  // Writes the event and notifies listeners within `tx`. Throws
  // std::logic_error for an undeclared type (a module bug, caught in tests).
  Event record(Tx& tx, const std::string& type, const Json& data) const;

  // Drops listeners (before module libraries are released).
  void clear();

 private:
  std::map<std::string, EventType> types_;
  std::vector<EventListener> listeners_;
};

}  // namespace rapport::host
