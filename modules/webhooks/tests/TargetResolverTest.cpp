// The resolver's fairness (delivery/TargetResolver.h): answers cached
// (positive and negative, a late answer too), lookups in flight bounded per
// company (beyond: kBusy at once, which the guard treats as a time-out),
// with a lookup of names replaced by one the test holds.
#include <cppunit/extensions/HelperMacros.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "delivery/TargetGuard.h"
#include "delivery/TargetResolver.h"

using rapport::webhooks::clearResolverCache;
using rapport::webhooks::Resolution;
using rapport::webhooks::resolveHost;
using rapport::webhooks::setNameLookupForTests;
using rapport::webhooks::TargetGuard;
using rapport::webhooks::TargetUnresolved;
namespace dns = rapport::webhooks::dns;
using namespace std::chrono_literals;

namespace {

// A resolver the test controls: each lookup is counted, and waits while the
// gate is closed.
struct FakeResolver {
  std::mutex mutex;
  std::condition_variable opened;
  bool open = true;
  std::atomic<int> lookups{0};
  Resolution::Status answer = Resolution::Status::kResolved;

  Resolution operator()(const std::string& host) {
    lookups.fetch_add(1);
    {
      std::unique_lock<std::mutex> lock(mutex);
      opened.wait_for(lock, 10s, [&] { return open; });
    }
    Resolution out;
    out.status = answer;
    if (answer == Resolution::Status::kResolved) {
      out.addresses.push_back(Poco::Net::IPAddress("93.184.216.34"));
    } else {
      out.error = "could not resolve " + host + ": not found";
    }
    return out;
  }
  void setOpen(bool value) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      open = value;
    }
    opened.notify_all();
  }
};

// Waits (polling, with a deadline) until `condition` holds.
template <typename Condition>
bool eventually(Condition condition) {
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(5ms);
  }
  return condition();
}

}  // namespace

class TargetResolverTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(TargetResolverTest);
  CPPUNIT_TEST(testAnswersAreCached);
  CPPUNIT_TEST(testLookupsAreBoundedPerCompany);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override { clearResolverCache(); }
  void tearDown() override {
    setNameLookupForTests({});
    clearResolverCache();
  }

  void testAnswersAreCached() {
    auto fake = std::make_shared<FakeResolver>();
    setNameLookupForTests([fake](const std::string& host) { return (*fake)(host); });
    CPPUNIT_ASSERT(resolveHost("hooks.example.com", 2s, "comp_a").status ==
                   Resolution::Status::kResolved);
    CPPUNIT_ASSERT(resolveHost("hooks.example.com", 2s, "comp_b").status ==
                   Resolution::Status::kResolved);
    CPPUNIT_ASSERT_EQUAL(1, fake->lookups.load());
    // A name that does not exist is remembered too (for a shorter time).
    fake->answer = Resolution::Status::kNotFound;
    CPPUNIT_ASSERT(resolveHost("nx.example.com", 2s, "comp_a").status ==
                   Resolution::Status::kNotFound);
    CPPUNIT_ASSERT(resolveHost("nx.example.com", 2s, "comp_a").status ==
                   Resolution::Status::kNotFound);
    CPPUNIT_ASSERT_EQUAL(2, fake->lookups.load());
    // A lookup that timed out is not an answer; its late answer is kept.
    fake->answer = Resolution::Status::kResolved;
    fake->setOpen(false);
    CPPUNIT_ASSERT(resolveHost("slow.example.com", 20ms, "comp_a").status ==
                   Resolution::Status::kTimedOut);
    fake->setOpen(true);
    CPPUNIT_ASSERT(eventually([&] {
      return resolveHost("slow.example.com", 0ms, "comp_a").status == Resolution::Status::kResolved;
    }));
    const int made = fake->lookups.load();
    CPPUNIT_ASSERT(resolveHost("slow.example.com", 0ms, "comp_b").status ==
                   Resolution::Status::kResolved);
    CPPUNIT_ASSERT_EQUAL(made, fake->lookups.load());
  }

  void testLookupsAreBoundedPerCompany() {
    auto fake = std::make_shared<FakeResolver>();
    setNameLookupForTests([fake](const std::string& host) { return (*fake)(host); });
    fake->setOpen(false);  // a resolver that hangs
    for (int i = 0; i < dns::kLookupsPerCompany; ++i) {
      CPPUNIT_ASSERT(
          resolveHost("hang" + std::to_string(i) + ".example.com", 10ms, "comp_a").status ==
          Resolution::Status::kTimedOut);
    }
    // Each of them started its lookup (a thread that a loaded machine may
    // start after the caller's 10 ms: counted when it runs, not when asked).
    CPPUNIT_ASSERT(eventually([&] { return fake->lookups.load() == dns::kLookupsPerCompany; }));
    // Company a holds its share (the threads still wait): the next one fails
    // at once, without a lookup.
    const auto start = std::chrono::steady_clock::now();
    const Resolution busy = resolveHost("more.example.com", 2s, "comp_a");
    CPPUNIT_ASSERT(busy.status == Resolution::Status::kBusy);
    CPPUNIT_ASSERT(std::chrono::steady_clock::now() - start < 1s);
    CPPUNIT_ASSERT_EQUAL(dns::kLookupsPerCompany, fake->lookups.load());
    // The guard treats it as a lookup that did not answer: registration
    // passes, a delivery fails (not as a time-out: nothing waited).
    const TargetGuard guard(false, 2000ms);
    CPPUNIT_ASSERT(!guard.checkForRegistration("https://more.example.com/", "comp_a"));
    try {
      guard.resolveForDelivery("https://more.example.com/", "comp_a");
      CPPUNIT_FAIL("unresolved expected");
    } catch (const TargetUnresolved& e) {
      CPPUNIT_ASSERT(!e.timedOut);
    }
    // Another company is not held back.
    CPPUNIT_ASSERT(resolveHost("other.example.com", 10ms, "comp_b").status ==
                   Resolution::Status::kTimedOut);
    // The hung lookups end: company a may look up again.
    fake->setOpen(true);
    CPPUNIT_ASSERT(eventually([&] {
      return resolveHost("more.example.com", 2s, "comp_a").status == Resolution::Status::kResolved;
    }));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TargetResolverTest);
