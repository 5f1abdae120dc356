// webhooks.retry_schedule: parsing, its error messages, and the delay before
// each attempt.
#include <cppunit/extensions/HelperMacros.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "delivery/RetrySchedule.h"

using rapport::webhooks::parseRetryAfter;
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
  CPPUNIT_TEST(testRetryAfterSecondsAndDates);
  CPPUNIT_TEST(testRetryAfterHonouredWithinTheSchedule);
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

  // Retry-After is delta-seconds or an HTTP date (RFC 9110 10.2.3): the
  // three date forms, a date in the past (0), and what is neither.
  void testRetryAfterSecondsAndDates() {
    // 2015-10-21T07:28:00Z, the RFC's example date.
    const auto now = std::chrono::system_clock::from_time_t(1445412480);
    CPPUNIT_ASSERT(parseRetryAfter("120", now) == seconds(120));
    CPPUNIT_ASSERT(parseRetryAfter(" 0 ", now) == seconds(0));
    CPPUNIT_ASSERT(parseRetryAfter("99999999999999", now) == seconds(365LL * 24 * 3600));
    CPPUNIT_ASSERT(parseRetryAfter("Wed, 21 Oct 2015 07:30:00 GMT", now) == seconds(120));
    CPPUNIT_ASSERT(parseRetryAfter("Wednesday, 21-Oct-15 07:29:00 GMT", now) == seconds(60));
    CPPUNIT_ASSERT(parseRetryAfter("Wed Oct 21 07:28:30 2015", now) == seconds(30));
    CPPUNIT_ASSERT(parseRetryAfter("Tue, 20 Oct 2015 07:28:00 GMT", now) == seconds(0));
    CPPUNIT_ASSERT(!parseRetryAfter("", now));
    CPPUNIT_ASSERT(!parseRetryAfter("-5", now));
    CPPUNIT_ASSERT(!parseRetryAfter("1.5", now));
    CPPUNIT_ASSERT(!parseRetryAfter("soon", now));
  }

  // No sooner than asked, never later than the schedule's longest step.
  void testRetryAfterHonouredWithinTheSchedule() {
    const RetrySchedule schedule =
        RetrySchedule::fromList({"0", "60", "300", "1800", "7200", "21600"});
    CPPUNIT_ASSERT(schedule.longest() == seconds(21600));
    CPPUNIT_ASSERT(schedule.honour(seconds(60), seconds(10)) == seconds(60));
    CPPUNIT_ASSERT(schedule.honour(seconds(60), seconds(600)) == seconds(600));
    CPPUNIT_ASSERT(schedule.honour(seconds(60), seconds(86400)) == seconds(21600));
    CPPUNIT_ASSERT(schedule.honour(seconds(21600), seconds(0)) == seconds(21600));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(RetryScheduleTest);
