// A small HTTP/1.1 client for end-to-end tests (keep-alive, one connection).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "rapport/http.h"
#include "rapport/json.h"

namespace rapport::test {

struct HttpResult {
  int status = 0;
  std::string reason;
  rapport::Headers headers;
  std::string body;

  // The body parsed as JSON (throws when it is not JSON).
  rapport::Json json() const { return rapport::Json::parse(body); }
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
  bool hasHeader(const std::string& name) const { return headers.count(name) > 0; }
};

class HttpClient {
 public:
  explicit HttpClient(int port, std::string host = "127.0.0.1");
  // Connects from `sourceAddress` (for example "127.0.0.2": every 127.x
  // address is loopback), so the server sees another client address.
  HttpClient(int port, std::string host, std::string sourceAddress);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Bearer token sent with every request while set.
  void setToken(std::string token) { token_ = std::move(token); }
  void clearToken() { token_.clear(); }

  HttpResult get(const std::string& path, const rapport::Headers& headers = {});
  HttpResult del(const std::string& path, const rapport::Headers& headers = {});
  HttpResult post(const std::string& path, const rapport::Json& body = rapport::Json::object(),
                  const rapport::Headers& headers = {});
  HttpResult patch(const std::string& path, const rapport::Json& body,
                   const rapport::Headers& headers = {});
  // Any method with a raw body (nullopt: no body and no Content-Length).
  HttpResult send(const std::string& method, const std::string& path,
                  const std::optional<std::string>& body, const rapport::Headers& headers = {});

 private:
  struct Impl;
  Impl* impl_;
  std::string token_;
};

}  // namespace rapport::test
