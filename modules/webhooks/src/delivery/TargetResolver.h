// Name resolution for the request-forgery guard (TargetGuard.cpp): every
// numeric form the system resolver accepts is resolved at once, a name is
// resolved by getaddrinfo on a detached thread so that the caller waits at
// most `timeout` (a resolver that hangs keeps its thread, never the caller).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <Poco/Net/IPAddress.h>

namespace rapport::webhooks {

struct Resolution {
  enum class Status { kResolved, kNotFound, kTimedOut };
  Status status = Status::kNotFound;
  std::vector<Poco::Net::IPAddress> addresses;  // resolver order, no duplicates
  std::string error;                            // why nothing was resolved
};

Resolution resolveHost(const std::string& host, std::chrono::milliseconds timeout);

}  // namespace rapport::webhooks
