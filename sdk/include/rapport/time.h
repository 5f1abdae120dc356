// Time as Rapport stores and prints it: microseconds since the Unix epoch
// (UTC) in storage, ISO-8601 with "Z" on the wire.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "rapport/export.h"

namespace rapport {

RAPPORT_SDK_API std::int64_t nowMicros();
// "2026-11-21T06:20:55.123456Z"
RAPPORT_SDK_API std::string isoTimestamp(std::int64_t micros);
// Parses ISO-8601 date-times with "Z" or an offset, optional fraction;
// nullopt when the text is not one.
RAPPORT_SDK_API std::optional<std::int64_t> parseIsoTimestamp(std::string_view text);
// "YYYY-MM-DD" of the UTC day containing `micros`.
RAPPORT_SDK_API std::string isoDate(std::int64_t micros);

}  // namespace rapport
