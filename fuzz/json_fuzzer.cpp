// Fuzzes the SDK's JSON parser (rapport::Json::parse) and its writer (dump),
// which every request body and response goes through.
//
// Properties, beyond "no crash, no sanitizer report":
// - parse refuses only with JsonParseError, at an offset inside the text;
// - what it accepts dumps to valid UTF-8 that parses back to an equal value,
//   and dumping that gives the same text (one canonical form);
// - every string it produces is valid UTF-8 (NUL aside, from \u0000);
// - any byte string, written as a JSON string, reads back as itself when it
//   is valid UTF-8, and as valid UTF-8 (U+FFFD for bad bytes) otherwise.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "FuzzSupport.h"
#include "rapport/json.h"
#include "rapport/validation.h"

namespace {

using rapport::Json;

bool validUtf8AllowingNul(std::string_view text) {
  std::string copy(text);
  for (char& c : copy) {
    if (c == '\0') c = ' ';
  }
  return rapport::isValidUtf8(copy);
}

void checkStrings(const Json& value) {
  if (value.isString()) FUZZ_CHECK(validUtf8AllowingNul(value.asString()));
  if (value.isArray()) {
    for (const Json& item : value.asArray()) checkStrings(item);
  }
  if (value.isObject()) {
    for (const auto& [key, item] : value.asObject()) {
      FUZZ_CHECK(validUtf8AllowingNul(key));
      checkStrings(item);
    }
  }
}

void checkDocument(std::string_view text) {
  Json value;
  try {
    value = Json::parse(text);
  } catch (const rapport::JsonParseError& error) {
    FUZZ_CHECK(error.offset() <= text.size());
    return;
  }
  checkStrings(value);
  const std::string dumped = value.dump();
  FUZZ_CHECK(rapport::isValidUtf8(dumped));  // control bytes, NUL included, are escaped
  Json reread;
  try {
    reread = Json::parse(dumped);
  } catch (const rapport::JsonParseError&) {
    FUZZ_CHECK(!"dump() wrote text that parse() refuses");
  }
  FUZZ_CHECK(reread == value);
  FUZZ_CHECK(reread.dump() == dumped);
}

void checkStringValue(std::string_view bytes) {
  const std::string dumped = Json(bytes).dump();
  FUZZ_CHECK(rapport::isValidUtf8(dumped));
  Json reread;
  try {
    reread = Json::parse(dumped);
  } catch (const rapport::JsonParseError&) {
    FUZZ_CHECK(!"a dumped string does not parse");
  }
  FUZZ_CHECK(reread.isString());
  FUZZ_CHECK(validUtf8AllowingNul(reread.asString()));
  if (validUtf8AllowingNul(bytes)) FUZZ_CHECK(reread.asString() == bytes);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = rapport::fuzz::asText(data, size);
  checkDocument(text);
  checkStringValue(text);
  return 0;
}
