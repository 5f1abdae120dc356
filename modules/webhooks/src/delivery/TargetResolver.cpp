// getaddrinfo (AF_UNSPEC, SOCK_STREAM) bounded in time (TargetResolver.h).
#include "delivery/TargetResolver.h"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

namespace rapport::webhooks {

namespace {

using Clock = std::chrono::steady_clock;

// Lookups in flight: for the process, and per company. A resolver that hangs
// for every name cannot pile up threads without limit, and one company
// cannot take the slots of the others.
class LookupSlots {
 public:
  bool take(const std::string& company) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (total_ >= dns::kMaxPendingLookups) return false;
    int& mine = byCompany_[company];
    if (mine >= dns::kLookupsPerCompany) return false;
    ++mine;
    ++total_;
    return true;
  }
  void give(const std::string& company) {
    std::lock_guard<std::mutex> lock(mutex_);
    --total_;
    const auto it = byCompany_.find(company);
    if (it != byCompany_.end() && --it->second <= 0) byCompany_.erase(it);
  }

 private:
  std::mutex mutex_;
  int total_ = 0;
  std::map<std::string, int> byCompany_;
};

LookupSlots& slots() {
  static LookupSlots* instance = new LookupSlots();  // never destroyed: detached threads use it
  return *instance;
}

// The answers of recent lookups (see the header for the times kept).
class AnswerCache {
 public:
  std::optional<Resolution> find(const std::string& host) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = entries_.find(host);
    if (it == entries_.end()) return std::nullopt;
    if (Clock::now() >= it->second.expires) {
      entries_.erase(it);
      return std::nullopt;
    }
    return it->second.answer;
  }
  void put(const std::string& host, const Resolution& answer) {
    if (answer.status != Resolution::Status::kResolved &&
        answer.status != Resolution::Status::kNotFound)
      return;
    const auto now = Clock::now();
    const auto ttl =
        answer.status == Resolution::Status::kResolved ? dns::kPositiveTtl : dns::kNegativeTtl;
    std::lock_guard<std::mutex> lock(mutex_);
    if (entries_.size() >= dns::kCacheEntries && entries_.find(host) == entries_.end()) {
      // Full: the expired go; if none had, the one expiring first.
      for (auto it = entries_.begin(); it != entries_.end();) {
        it = now >= it->second.expires ? entries_.erase(it) : std::next(it);
      }
      if (entries_.size() >= dns::kCacheEntries) {
        entries_.erase(std::min_element(
            entries_.begin(), entries_.end(),
            [](const auto& a, const auto& b) { return a.second.expires < b.second.expires; }));
      }
    }
    entries_[host] = Entry{answer, now + ttl};
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    entries_.clear();
  }

 private:
  struct Entry {
    Resolution answer;
    Clock::time_point expires;
  };
  std::mutex mutex_;
  std::map<std::string, Entry> entries_;
};

AnswerCache& cache() {
  static AnswerCache* instance = new AnswerCache();  // never destroyed: detached threads use it
  return *instance;
}

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

std::mutex& lookupMutex() {
  static auto* mutex = new std::mutex();  // never destroyed: detached threads use it
  return *mutex;
}
NameLookup& testLookup() {
  static auto* lookup = new NameLookup();
  return *lookup;
}

// The lookup of a name: getaddrinfo, or the test's.
Resolution lookupName(const std::string& host) {
  NameLookup replaced;
  {
    std::lock_guard<std::mutex> lock(lookupMutex());
    replaced = testLookup();
  }
  return replaced ? replaced(host) : lookup(host, 0);
}

}  // namespace

Resolution resolveHost(const std::string& host, std::chrono::milliseconds timeout,
                       const std::string& company) {
  // Numbers in any form the resolver reads (2130706433, 0177.0.0.1, 0x7f.1,
  // ::ffff:127.0.0.1) never block: no thread for them.
  Resolution numeric = lookup(host, AI_NUMERICHOST);
  if (numeric.status == Resolution::Status::kResolved) return numeric;
  if (auto cached = cache().find(host)) return std::move(*cached);

  Resolution busy;
  busy.status = Resolution::Status::kBusy;
  busy.error = "could not resolve " + host + ": resolver busy";
  if (!slots().take(company)) return busy;
  auto state = std::make_shared<Lookup>();
  try {
    std::thread([state, host, company] {
      Resolution result = lookupName(host);
      cache().put(host, result);  // a late answer serves the next attempt
      slots().give(company);
      {
        std::lock_guard<std::mutex> lock(state->mutex);
        state->result = std::move(result);
        state->finished = true;
      }
      state->done.notify_all();
    }).detach();
  } catch (const std::system_error&) {
    slots().give(company);
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

void clearResolverCache() {
  cache().clear();
}

void setNameLookupForTests(NameLookup lookup) {
  std::lock_guard<std::mutex> lock(lookupMutex());
  testLookup() = std::move(lookup);
}

}  // namespace rapport::webhooks
