#include "events/EventBus.h"

#include <stdexcept>

#include "rapport/ids.h"
#include "rapport/time.h"

namespace rapport::host {

void EventBus::declare(EventType type) {
  auto [it, inserted] = types_.emplace(type.type, type);
  if (!inserted) {
    throw std::logic_error("event type '" + type.type + "' is declared by both module '" +
                           it->second.module + "' and module '" + type.module + "'");
  }
}

void EventBus::listen(EventListener listener) {
  listeners_.push_back(std::move(listener));
}

std::vector<EventType> EventBus::catalogue() const {
  std::vector<EventType> out;
  out.reserve(types_.size());
  for (const auto& [name, type] : types_) out.push_back(type);
  return out;
}

Event EventBus::record(Tx& tx, const std::string& type, const Json& data) const {
  if (!known(type)) throw std::logic_error("event type '" + type + "' was never declared");
  Event event{newId("evt_"), type, tx.companyId(), nowMicros(), data};
  tx.exec("INSERT INTO events (id, company_id, type, data, created_at) VALUES (?, ?, ?, ?, ?)",
          {event.id, event.companyId, event.type, event.data.dump(), event.createdAt});
  for (const auto& listener : listeners_) listener(tx, event);
  return event;
}

void EventBus::clear() {
  listeners_.clear();
}

}  // namespace rapport::host
