// How an event's actor reads in JSON (the event log, webhook envelopes).
#include "rapport/events.h"

namespace rapport {

Actor actorOf(const Identity& identity) {
  if (!identity.authenticated) return {};
  return {identity.isApiKey() ? "api_key" : "user", identity.principalId()};
}

Json actorJson(const Actor& actor) {
  Json out = Json::object({{"type", actor.type}});
  if (!actor.id.empty()) out.set("id", actor.id);
  return out;
}

}  // namespace rapport
