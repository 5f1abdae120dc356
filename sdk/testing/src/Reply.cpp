// Reply: the accessors of one answer (rapport/testing.h).
#include "rapport/testing.h"

namespace rapport::testing {

const Json& Reply::data() const {
  return body["data"];
}

const Json& Reply::meta() const {
  return body["meta"];
}

std::string Reply::message() const {
  const Json& message = body["message"];
  return message.isString() ? message.asString() : std::string();
}

std::vector<std::string> Reply::fieldErrors(std::string_view field) const {
  std::vector<std::string> out;
  const Json& messages = body["errors"][field];
  if (!messages.isArray()) return out;
  for (const Json& message : messages.asArray()) {
    if (message.isString()) out.push_back(message.asString());
  }
  return out;
}

std::optional<std::string> Reply::header(std::string_view name) const {
  auto it = headers.find(std::string(name));
  if (it == headers.end()) return std::nullopt;
  return it->second;
}

}  // namespace rapport::testing
