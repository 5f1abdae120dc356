#include "e2e/common/Timely.h"

#include <cppunit/extensions/HelperMacros.h>

#include "e2e/common/Api.h"

namespace rapport::e2e {

void retryUntilTimely(const std::string& what, int attempts,
                      const std::function<bool(int attempt)>& attempt) {
  for (int n = 0; n < attempts; ++n) {
    if (attempt(n)) return;
  }
  CPPUNIT_FAIL("none of " + std::to_string(attempts) + " attempts was fast enough to check " +
               what + ": this machine is too slow for the test, which checks nothing less");
}

std::int64_t awayFromWindowEdge(std::int64_t windowSeconds, std::chrono::seconds needed) {
  CPPUNIT_ASSERT_MESSAGE("the margin must be shorter than the window",
                         needed.count() < windowSeconds);
  const std::int64_t now = unixNow();
  const std::int64_t end = now / windowSeconds * windowSeconds + windowSeconds;
  if (end - now >= needed.count()) return end;
  CPPUNIT_ASSERT_MESSAGE(
      "the next rate-limit window did not start in time",
      waitUntil([&] { return unixNow() >= end; }, needed + std::chrono::seconds(2)));
  return end + windowSeconds;
}

}  // namespace rapport::e2e
