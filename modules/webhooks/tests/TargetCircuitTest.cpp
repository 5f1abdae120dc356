// The targets' circuit breaker (delivery/TargetCircuit.h): opens after the
// configured run of time-outs, any other outcome resets the run, deferred
// until the open time ends, then one time-out opens it again and one
// answer closes it.
#include <cppunit/extensions/HelperMacros.h>

#include <string>

#include "delivery/TargetCircuit.h"

using rapport::webhooks::TargetCircuits;

namespace {
constexpr std::int64_t kSecond = 1000000;
}  // namespace

class TargetCircuitTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(TargetCircuitTest);
  CPPUNIT_TEST(testOpensAfterConsecutiveTimeouts);
  CPPUNIT_TEST(testAnswerResetsTheRun);
  CPPUNIT_TEST(testHalfOpenReopensOrCloses);
  CPPUNIT_TEST(testWebhooksAreApart);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testOpensAfterConsecutiveTimeouts() {
    TargetCircuits circuits(3, std::chrono::seconds(60));
    const std::int64_t t = 1000 * kSecond;
    CPPUNIT_ASSERT(!circuits.record("whk_a", true, t));
    CPPUNIT_ASSERT(!circuits.record("whk_a", true, t + kSecond));
    CPPUNIT_ASSERT(!circuits.openUntil("whk_a", t + kSecond));
    const auto opened = circuits.record("whk_a", true, t + 2 * kSecond);
    CPPUNIT_ASSERT(opened);
    CPPUNIT_ASSERT_EQUAL(t + 62 * kSecond, *opened);
    CPPUNIT_ASSERT_EQUAL(*opened, *circuits.openUntil("whk_a", t + 3 * kSecond));
    // An attempt that began before it opened and ends after changes nothing.
    CPPUNIT_ASSERT(!circuits.record("whk_a", true, t + 4 * kSecond));
    CPPUNIT_ASSERT_EQUAL(*opened, *circuits.openUntil("whk_a", t + 5 * kSecond));
    CPPUNIT_ASSERT(!circuits.openUntil("whk_a", *opened));
  }

  void testAnswerResetsTheRun() {
    TargetCircuits circuits(3, std::chrono::seconds(60));
    const std::int64_t t = 1000 * kSecond;
    circuits.record("whk_a", true, t);
    circuits.record("whk_a", true, t);
    circuits.record("whk_a", false, t);  // an answer (any status) or a fast failure
    CPPUNIT_ASSERT(!circuits.record("whk_a", true, t));
    CPPUNIT_ASSERT(!circuits.record("whk_a", true, t));
    CPPUNIT_ASSERT(circuits.record("whk_a", true, t));
  }

  void testHalfOpenReopensOrCloses() {
    TargetCircuits circuits(2, std::chrono::seconds(10));
    const std::int64_t t = 1000 * kSecond;
    circuits.record("whk_a", true, t);
    const auto opened = circuits.record("whk_a", true, t);
    CPPUNIT_ASSERT(opened);
    // Half-open: attempts go; the first time-out opens it again at once.
    CPPUNIT_ASSERT(!circuits.openUntil("whk_a", *opened + 1));
    const auto again = circuits.record("whk_a", true, *opened + 1);
    CPPUNIT_ASSERT(again);
    CPPUNIT_ASSERT_EQUAL(*opened + 1 + 10 * kSecond, *again);
    // Half-open again; an answer closes it: the run starts over.
    CPPUNIT_ASSERT(!circuits.record("whk_a", false, *again + 1));
    CPPUNIT_ASSERT(!circuits.record("whk_a", true, *again + 2));
    CPPUNIT_ASSERT(!circuits.openUntil("whk_a", *again + 3));
  }

  void testWebhooksAreApart() {
    TargetCircuits circuits(1, std::chrono::seconds(10));
    const std::int64_t t = 1000 * kSecond;
    CPPUNIT_ASSERT(circuits.record("whk_a", true, t));
    CPPUNIT_ASSERT(circuits.openUntil("whk_a", t + 1));
    CPPUNIT_ASSERT(!circuits.openUntil("whk_b", t + 1));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TargetCircuitTest);
