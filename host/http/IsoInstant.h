// Reads the operator's deprecation and sunset dates, which the API allows as
// ISO-8601 dates ("2026-06-30") or date-times ("2026-06-30T12:00:00Z").
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace rapport::host {

// Microseconds since the epoch (UTC) of the instant `text` names: a date is
// its midnight UTC. nullopt when `text` is neither form or names no real
// calendar day.
std::optional<std::int64_t> parseIsoInstant(std::string_view text);

}  // namespace rapport::host
