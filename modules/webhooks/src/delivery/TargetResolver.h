// Name resolution for the request-forgery guard (TargetGuard.cpp): every
// numeric form the system resolver accepts is resolved at once, a name is
// resolved by getaddrinfo on a detached thread so that the caller waits at
// most `timeout` (a resolver that hangs keeps its thread, never the caller).
//
// Fair under abuse (docs/modules/webhooks.md, "Fairness"):
// - answers are cached for the whole process: a name that resolved for
//   kPositiveTtl (30 s), a name that does not exist for kNegativeTtl (5 s);
//   a lookup that timed out is not cached, but its answer is when it comes
//   late. At most kCacheEntries names are kept.
// - lookups in flight (their threads, including those whose caller gave up)
//   are bounded per company (kLookupsPerCompany) and for the process
//   (kMaxPendingLookups): beyond either, the lookup fails at once with
//   kBusy, which callers treat as a time-out.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include <Poco/Net/IPAddress.h>

namespace rapport::webhooks {

struct Resolution {
  enum class Status { kResolved, kNotFound, kTimedOut, kBusy };
  Status status = Status::kNotFound;
  std::vector<Poco::Net::IPAddress> addresses;  // resolver order, no duplicates
  std::string error;                            // why nothing was resolved
};

namespace dns {
inline constexpr std::chrono::seconds kPositiveTtl{30};
inline constexpr std::chrono::seconds kNegativeTtl{5};
inline constexpr std::size_t kCacheEntries = 4096;
inline constexpr int kLookupsPerCompany = 4;
inline constexpr int kMaxPendingLookups = 64;
}  // namespace dns

// `company` is who asks (a company id; "" for the process itself): it may
// hold only dns::kLookupsPerCompany lookups at once.
Resolution resolveHost(const std::string& host, std::chrono::milliseconds timeout,
                       const std::string& company = "");

// Tests: empties the answer cache; replaces the lookup of names (numbers
// are never looked up) by `lookup`, or restores getaddrinfo when empty.
void clearResolverCache();
using NameLookup = std::function<Resolution(const std::string& host)>;
void setNameLookupForTests(NameLookup lookup);

}  // namespace rapport::webhooks
