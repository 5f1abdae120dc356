// The request a thread is serving, for the parts of the host that run below
// the HTTP layer and want to name it (the event log records it, and who made
// it, with every event). The pipeline opens a scope around each routed
// request; jobs and start-up run outside any scope (current() is then "",
// actor() the system).
#pragma once

#include <string>

#include "rapport/events.h"

namespace rapport::host {

class RequestScope {
 public:
  explicit RequestScope(std::string requestId, rapport::Actor actor = {});
  ~RequestScope();
  RequestScope(const RequestScope&) = delete;
  RequestScope& operator=(const RequestScope&) = delete;

  static const std::string& current();
  // Who the request acts as: a user, an API key; the system outside requests.
  static const rapport::Actor& actor();

 private:
  std::string id_;  // copies: the scope never depends on the caller's strings
  rapport::Actor actor_;
  const RequestScope* previous_;
};

}  // namespace rapport::host
