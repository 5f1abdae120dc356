// The request a thread is serving, for the parts of the host that run below
// the HTTP layer and want to name it (the event log records it with every
// event). The pipeline opens a scope around each routed request; jobs and
// start-up run outside any scope (current() is then "").
#pragma once

#include <string>

namespace rapport::host {

class RequestScope {
 public:
  explicit RequestScope(std::string requestId);
  ~RequestScope();
  RequestScope(const RequestScope&) = delete;
  RequestScope& operator=(const RequestScope&) = delete;

  static const std::string& current();

 private:
  std::string id_;  // a copy: the scope never depends on the caller's string
  const std::string* previous_;
};

}  // namespace rapport::host
