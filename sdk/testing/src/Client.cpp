// Client: a request as a user of a company, through the host's pipeline.
#include "HarnessState.h"
#include "rapport/testing.h"

namespace rapport::testing {

Reply Client::get(const std::string& path) const {
  return request("GET", path);
}

Reply Client::post(const std::string& path, const Json& body) const {
  return request("POST", path, body.dump());
}

Reply Client::put(const std::string& path, const Json& body) const {
  return request("PUT", path, body.dump());
}

Reply Client::patch(const std::string& path, const Json& body) const {
  return request("PATCH", path, body.dump());
}

Reply Client::del(const std::string& path) const {
  return request("DELETE", path);
}

Reply Client::request(const std::string& method, const std::string& path,
                      const std::optional<std::string>& body, const Headers& headers) const {
  host::RawRequest raw;
  raw.method = method;
  const std::size_t question = path.find('?');
  raw.path = path.substr(0, question);
  if (question != std::string::npos) raw.query = path.substr(question + 1);
  // What an HTTP client would send: the headers the transport sees.
  raw.headers["Host"] = "harness.test";
  if (!token_.empty()) raw.headers["Authorization"] = "Bearer " + token_;
  if (body) {
    raw.headers["Content-Type"] = "application/json";
    raw.headers["Content-Length"] = std::to_string(body->size());
    raw.body = *body;
  }
  for (const auto& [name, value] : headers) raw.headers[name] = value;
  return state_->send(std::move(raw));
}

}  // namespace rapport::testing
