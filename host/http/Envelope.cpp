#include "http/Envelope.h"

#include "rapport/json.h"

namespace rapport::host {

std::string renderResponse(const rapport::Response& response) {
  rapport::Json body = rapport::Json::object({{"message", response.message}});
  if (response.data) body.set("data", *response.data);
  if (response.meta) body.set("meta", *response.meta);
  return body.dump();
}

std::string renderError(const rapport::Error& error) {
  rapport::Json body = rapport::Json::object({{"message", std::string(error.what())}});
  // The API promises errors only on 422, and only when some field is at fault.
  if (error.status() == 422 && !error.errors().empty()) {
    rapport::Json fields = rapport::Json::object();
    for (const auto& [field, messages] : error.errors()) {
      rapport::Json list = rapport::Json::array();
      for (const auto& message : messages) list.push(message);
      fields.set(field, std::move(list));
    }
    body.set("errors", std::move(fields));
  }
  return body.dump();
}

std::string renderMessage(const std::string& message) {
  return rapport::Json::object({{"message", message}}).dump();
}

}  // namespace rapport::host
