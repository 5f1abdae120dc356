// Timing in end-to-end tests, without luck: no assertion dropped because the
// machine was slow, and no sleep that only hopes to be long enough.
//
// retryUntilTimely: a check that needs something to happen within a time
// (a request inside a one-second grace, before a sunset, before a throttle
// lifts) runs in an attempt that reports whether it was fast enough to judge.
// A slow attempt is run again (on fresh state: a new account, a new
// server), never skipped; the test fails when no attempt was timely.
//
//   retryUntilTimely("a request inside the 1 s grace", 5, [&](int) {
//     ...
//     if (elapsed() >= 800ms) return false;  // too slow to judge: again
//     E2E_ASSERT_DATA(200, inGrace);
//     return true;
//   });
//
// awayFromWindowEdge: the general rate limit counts in fixed windows aligned
// to multiples of ratelimit.window since the Unix epoch (docs/api-choices.md,
// "Rate limits"; RateLimitTest checks X-RateLimit-Reset against it). A test
// that counts its requests inside one window calls it first: when less than
// `needed` is left of the current window it waits for the next one to start,
// so the count never straddles a window's end, wherever in the hour the run
// falls.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace rapport::e2e {

// Runs attempt(0), attempt(1), ... until one returns true, at most
// `attempts` times. An attempt returns false when it ran too slowly for its
// timed assertions to mean anything (and then makes none of them); it
// asserts everything else as usual. Fails the test, naming `what`, when no
// attempt was timely.
void retryUntilTimely(const std::string& what, int attempts,
                      const std::function<bool(int attempt)>& attempt);

// Returns at once when at least `needed` is left of the current window of
// `windowSeconds`; otherwise waits (polling, bounded) until the next window
// has started. Returns the end of the window the caller now runs in, in Unix
// seconds: the X-RateLimit-Reset its answers carry.
std::int64_t awayFromWindowEdge(std::int64_t windowSeconds,
                                std::chrono::seconds needed = std::chrono::seconds(30));

}  // namespace rapport::e2e
