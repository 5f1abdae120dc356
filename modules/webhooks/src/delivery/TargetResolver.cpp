// getaddrinfo (AF_UNSPEC, SOCK_STREAM) bounded in time (TargetResolver.h).
#include "delivery/TargetResolver.h"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

namespace rapport::webhooks {

namespace {

// Resolver threads still running after their caller gave up are bounded: a
// resolver that hangs for every name cannot pile up threads without limit.
constexpr int kMaxPendingLookups = 64;
std::atomic<int> pendingLookups{0};

struct Lookup {
  std::mutex mutex;
  std::condition_variable done;
  bool finished = false;
  Resolution result;
};

Resolution fromAddrinfo(int rc, addrinfo* list, const std::string& host) {
  Resolution out;
  if (rc != 0) {
    out.status = Resolution::Status::kNotFound;
    out.error = "could not resolve " + host + ": " + gai_strerror(rc);
    return out;
  }
  for (addrinfo* entry = list; entry != nullptr; entry = entry->ai_next) {
    Poco::Net::IPAddress address;
    if (entry->ai_family == AF_INET) {
      const auto* in = reinterpret_cast<const sockaddr_in*>(entry->ai_addr);
      address = Poco::Net::IPAddress(&in->sin_addr, sizeof(in->sin_addr));
    } else if (entry->ai_family == AF_INET6) {
      const auto* in6 = reinterpret_cast<const sockaddr_in6*>(entry->ai_addr);
      address = Poco::Net::IPAddress(&in6->sin6_addr, sizeof(in6->sin6_addr), in6->sin6_scope_id);
    } else {
      continue;
    }
    if (std::find(out.addresses.begin(), out.addresses.end(), address) == out.addresses.end())
      out.addresses.push_back(address);
  }
  if (out.addresses.empty()) {
    out.status = Resolution::Status::kNotFound;
    out.error = "could not resolve " + host + ": no address";
  } else {
    out.status = Resolution::Status::kResolved;
  }
  return out;
}

Resolution lookup(const std::string& host, int flags) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = flags;
  addrinfo* list = nullptr;
  const int rc = getaddrinfo(host.c_str(), nullptr, &hints, &list);
  Resolution out = fromAddrinfo(rc, list, host);
  if (list != nullptr) freeaddrinfo(list);
  return out;
}

}  // namespace

Resolution resolveHost(const std::string& host, std::chrono::milliseconds timeout) {
  // Numbers in any form the resolver reads (2130706433, 0177.0.0.1, 0x7f.1,
  // ::ffff:127.0.0.1) never block: no thread for them.
  Resolution numeric = lookup(host, AI_NUMERICHOST);
  if (numeric.status == Resolution::Status::kResolved) return numeric;

  Resolution busy;
  busy.status = Resolution::Status::kTimedOut;
  busy.error = "could not resolve " + host + ": resolver busy";
  if (pendingLookups.fetch_add(1) >= kMaxPendingLookups) {
    pendingLookups.fetch_sub(1);
    return busy;
  }
  auto state = std::make_shared<Lookup>();
  try {
    std::thread([state, host] {
      Resolution result = lookup(host, 0);
      {
        std::lock_guard<std::mutex> lock(state->mutex);
        state->result = std::move(result);
        state->finished = true;
      }
      state->done.notify_all();
      pendingLookups.fetch_sub(1);
    }).detach();
  } catch (const std::system_error&) {
    pendingLookups.fetch_sub(1);
    return busy;
  }
  std::unique_lock<std::mutex> lock(state->mutex);
  if (!state->done.wait_for(lock, timeout, [&] { return state->finished; })) {
    Resolution late;
    late.status = Resolution::Status::kTimedOut;
    late.error = "could not resolve " + host + ": timed out";
    return late;
  }
  return std::move(state->result);
}

}  // namespace rapport::webhooks
