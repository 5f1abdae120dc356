// Events: what happened in a company, recorded in the same transaction as
// the change (Tx::emit). Modules declare the types they emit with a
// description (they appear in GET /v1/webhooks/events) and may subscribe to
// every recorded event inside the emitting transaction (the webhooks module
// fans events out to deliveries this way, so nothing is lost on a crash).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "rapport/db.h"
#include "rapport/json.h"

namespace rapport {

struct EventType {
  std::string type;         // "crm.contact.created" (domain.resource.action)
  std::string description;  // one sentence for GET /webhooks/events
  std::string module;       // filled in by the host
};

struct Event {
  std::string id;              // evt_...
  std::string type;            // "crm.contact.created"
  std::string companyId;       // tenant company
  std::int64_t createdAt = 0;  // microseconds since the epoch
  Json data;                   // the record as GET returns it; {"id"} for deletions
};

// Called inside the emitting transaction, after the event row is written.
// Throwing rolls the whole transaction back.
using EventListener = std::function<void(Tx& tx, const Event& event)>;

}  // namespace rapport
