// The caps on pings and manual retries running at once
// (delivery/SyncAttempts.h): per company and for the instance, slots given
// back when they end (a slot moved keeps its place: one give-back only).
// The caps are per instance: each instance counts its own attempts.
#include <cppunit/extensions/HelperMacros.h>

#include <optional>
#include <string>
#include <vector>

#include "delivery/SyncAttempts.h"

using rapport::webhooks::SyncAttempts;

class SyncAttemptsTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(SyncAttemptsTest);
  CPPUNIT_TEST(testPerCompanyCap);
  CPPUNIT_TEST(testInstanceCap);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testPerCompanyCap() {
    SyncAttempts caps(2, 4);
    auto a1 = caps.tryTake("comp_a");
    auto a2 = caps.tryTake("comp_a");
    CPPUNIT_ASSERT(a1 && a2);
    CPPUNIT_ASSERT(!caps.tryTake("comp_a"));
    // Another company is not held back by the first one's cap.
    auto b1 = caps.tryTake("comp_b");
    CPPUNIT_ASSERT(b1);
    a1.reset();  // the attempt ended
    CPPUNIT_ASSERT(caps.tryTake("comp_a"));
    CPPUNIT_ASSERT_EQUAL(2, caps.running());
  }

  void testInstanceCap() {
    SyncAttempts caps(2, 3);
    std::vector<SyncAttempts::Slot> held;
    for (const char* company : {"comp_a", "comp_a", "comp_b"}) {
      auto slot = caps.tryTake(company);
      CPPUNIT_ASSERT(slot);
      held.push_back(std::move(*slot));
    }
    CPPUNIT_ASSERT_EQUAL(3, caps.running());
    CPPUNIT_ASSERT(!caps.tryTake("comp_c"));  // under its own cap, but the instance is full
    held.pop_back();
    CPPUNIT_ASSERT(caps.tryTake("comp_c"));
    held.clear();
    CPPUNIT_ASSERT_EQUAL(0, caps.running());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(SyncAttemptsTest);
