// webhooks.retry_schedule: parsing, its error messages, and the delay before
// each attempt.
#include <cppunit/extensions/HelperMacros.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "delivery/RetrySchedule.h"

using rapport::webhooks::RetrySchedule;
using std::chrono::seconds;

namespace {

std::string errorOf(const std::vector<std::string>& items) {
  try {
    RetrySchedule::fromList(items);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

class RetryScheduleTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(RetryScheduleTest);
  CPPUNIT_TEST(testDefaultSchedule);
  CPPUNIT_TEST(testSingleAttempt);
  CPPUNIT_TEST(testErrorsNameTheKey);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testDefaultSchedule() {
    const auto schedule = RetrySchedule::fromList({"0", "60", "300", "1800", "7200", "21600"});
    CPPUNIT_ASSERT_EQUAL(6, schedule.maxAttempts());
    CPPUNIT_ASSERT(seconds(0) == schedule.first());
    CPPUNIT_ASSERT(seconds(0) == *schedule.after(0));
    CPPUNIT_ASSERT(seconds(60) == *schedule.after(1));
    CPPUNIT_ASSERT(seconds(300) == *schedule.after(2));
    CPPUNIT_ASSERT(seconds(1800) == *schedule.after(3));
    CPPUNIT_ASSERT(seconds(7200) == *schedule.after(4));
    CPPUNIT_ASSERT(seconds(21600) == *schedule.after(5));
    CPPUNIT_ASSERT(!schedule.after(6).has_value());
    CPPUNIT_ASSERT(!schedule.after(7).has_value());
  }

  void testSingleAttempt() {
    const auto schedule = RetrySchedule::fromList({" 5 "});
    CPPUNIT_ASSERT_EQUAL(1, schedule.maxAttempts());
    CPPUNIT_ASSERT(seconds(5) == schedule.first());
    CPPUNIT_ASSERT(!schedule.after(1).has_value());
    const auto twenty = RetrySchedule::fromList(std::vector<std::string>(20, "1"));
    CPPUNIT_ASSERT_EQUAL(20, twenty.maxAttempts());
    CPPUNIT_ASSERT(seconds(1) == *twenty.after(19));
    CPPUNIT_ASSERT(!twenty.after(20).has_value());
  }

  void testErrorsNameTheKey() {
    CPPUNIT_ASSERT_EQUAL(
        std::string("webhooks.retry_schedule must list at least one delay in seconds"),
        errorOf({}));
    CPPUNIT_ASSERT_EQUAL(std::string("webhooks.retry_schedule: \"1m\" is not an integer number "
                                     "of seconds"),
                         errorOf({"0", "1m"}));
    CPPUNIT_ASSERT_EQUAL(
        std::string("webhooks.retry_schedule: \"1.5\" is not an integer number of seconds"),
        errorOf({"1.5"}));
    CPPUNIT_ASSERT_EQUAL(
        std::string("webhooks.retry_schedule: \"\" is not an integer number of seconds"),
        errorOf({"0", " "}));
    CPPUNIT_ASSERT_EQUAL(std::string("webhooks.retry_schedule: \"-60\" is negative"),
                         errorOf({"0", "-60"}));
    CPPUNIT_ASSERT_EQUAL(
        std::string("webhooks.retry_schedule must list at most 20 delays (got 21)"),
        errorOf(std::vector<std::string>(21, "1")));
    CPPUNIT_ASSERT_EQUAL(std::string("webhooks.retry_schedule: \"31536001\" is more than "
                                     "31536000 seconds (one year)"),
                         errorOf({"31536001"}));
    CPPUNIT_ASSERT_EQUAL(std::string("webhooks.retry_schedule: \"99999999999999999999\" is "
                                     "not an integer number of seconds"),
                         errorOf({"99999999999999999999"}));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(RetryScheduleTest);
