#include "events/EventBus.h"

#include <stdexcept>

#include "log/RequestScope.h"
#include "rapport/ids.h"
#include "rapport/time.h"

namespace rapport::host {
namespace {

// The company's next log position. The upsert locks the company's row until
// the transaction ends: a concurrent emitter for the same company waits here
// and reads the number this one committed (or the same number again after a
// rollback), so numbers follow commit order without gaps.
std::int64_t nextSequence(Tx& tx) {
  Result r = tx.query(
      "INSERT INTO event_sequences (company_id, last_sequence) VALUES (?, 1) "
      "ON CONFLICT (company_id) DO UPDATE SET last_sequence = event_sequences.last_sequence + 1 "
      "RETURNING last_sequence",
      {tx.companyId()});
  return r.front().i64("last_sequence");
}

}  // namespace

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

std::vector<EventType> EventBus::types() const {
  std::vector<EventType> out;
  out.reserve(types_.size());
  for (const auto& [name, type] : types_) out.push_back(type);
  return out;
}

std::optional<EventType> EventBus::find(const std::string& type) const {
  auto it = types_.find(type);
  if (it == types_.end()) return std::nullopt;
  return it->second;
}

Event EventBus::record(Tx& tx, const std::string& type, const Json& data) const {
  auto declared = types_.find(type);
  if (declared == types_.end()) {
    throw std::logic_error("event type '" + type + "' was never declared");
  }
  if (tx.companyId().empty()) {
    throw std::logic_error("event '" + type + "' emitted in a transaction without a company");
  }
  Event event;
  event.id = newId("evt_");
  event.sequence = nextSequence(tx);
  event.type = type;
  event.module = declared->second.module;
  event.companyId = tx.companyId();
  event.requestId = RequestScope::current();
  event.createdAt = nowMicros();
  event.data = data;
  tx.exec(
      "INSERT INTO events (company_id, sequence, id, type, module, request_id, data, created_at) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      {event.companyId, event.sequence, event.id, event.type, event.module,
       event.requestId.empty() ? Value() : Value(event.requestId), event.data.dump(),
       event.createdAt});
  for (const auto& listener : listeners_) listener(tx, event);
  return event;
}

std::int64_t EventBus::purgeOlderThan(Database& db, std::int64_t cutoffMicros, int batch) {
  return db.exec(
      "DELETE FROM events WHERE id IN "
      "(SELECT id FROM events WHERE created_at < ? ORDER BY created_at LIMIT ?)",
      {cutoffMicros, batch});
}

void EventBus::clear() {
  listeners_.clear();
}

}  // namespace rapport::host
