// The job runner, with real threads. Waits are on conditions with a
// deadline; the only fixed durations are intervals long enough (one hour)
// that a run before them proves a wake-up.
#include <cppunit/extensions/HelperMacros.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>

#include "jobs/JobRunner.h"

using namespace std::chrono_literals;
using rapport::host::JobRunner;

namespace {

constexpr auto kDeadline = 10s;
constexpr auto kNever = std::chrono::hours(1);

// Counts runs and lets a test wait for a number of them.
class RunLog {
 public:
  void ran() {
    {
      std::lock_guard lock(mutex_);
      ++runs_;
    }
    changed_.notify_all();
  }
  bool waitForRuns(int n) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, kDeadline, [&] { return runs_ >= n; });
  }
  int runs() {
    std::lock_guard lock(mutex_);
    return runs_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int runs_ = 0;
};

// A gate a run can wait at until the test opens it.
class Gate {
 public:
  void open() {
    {
      std::lock_guard lock(mutex_);
      open_ = true;
    }
    changed_.notify_all();
  }
  void arrive() {
    std::unique_lock lock(mutex_);
    ++arrived_;
    changed_.notify_all();
    changed_.wait_for(lock, kDeadline, [&] { return open_; });
  }
  bool waitForArrivals(int n) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, kDeadline, [&] { return arrived_ >= n; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool open_ = false;
  int arrived_ = 0;
};

}  // namespace

class JobRunnerTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(JobRunnerTest);
  CPPUNIT_TEST(testRunsAtStart);
  CPPUNIT_TEST(testWakeRunsAWaitingJob);
  CPPUNIT_TEST(testWakeDuringRunIsNotLost);
  CPPUNIT_TEST(testWakeOneRunsOneThread);
  CPPUNIT_TEST(testConcurrencyRunsThreadsSideBySide);
  CPPUNIT_TEST(testContextWait);
  CPPUNIT_TEST(testStopInterruptsWaits);
  CPPUNIT_TEST(testHandleOutlivesRunner);
  CPPUNIT_TEST(testFailingJobRunsAgain);
  CPPUNIT_TEST(testRefusesBadJobs);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testRunsAtStart() {
    RunLog log;
    JobRunner runner;
    runner.add({.name = "t", .interval = kNever, .run = [&](rapport::JobContext&) { log.ran(); }});
    runner.start();
    CPPUNIT_ASSERT(log.waitForRuns(1));
    runner.stop();
  }

  void testWakeRunsAWaitingJob() {
    RunLog log;
    JobRunner runner;
    auto handle = runner.add(
        {.name = "t", .interval = kNever, .run = [&](rapport::JobContext&) { log.ran(); }});
    runner.start();
    CPPUNIT_ASSERT(log.waitForRuns(1));
    handle->wake();
    CPPUNIT_ASSERT(log.waitForRuns(2));
    handle->wake();
    CPPUNIT_ASSERT(log.waitForRuns(3));
    runner.stop();
  }

  void testWakeDuringRunIsNotLost() {
    RunLog log;
    Gate gate;
    JobRunner runner;
    auto handle = runner.add({.name = "t", .interval = kNever, .run = [&](rapport::JobContext&) {
                                if (log.runs() == 0) gate.arrive();
                                log.ran();
                              }});
    runner.start();
    CPPUNIT_ASSERT(gate.waitForArrivals(1));
    handle->wake();  // while the first run is still inside the job
    gate.open();
    CPPUNIT_ASSERT(log.waitForRuns(2));
    runner.stop();
  }

  // wakeOne: one of the three waiting threads runs, each time. (A wake of
  // all three would count 3 more runs per call; correct code never exceeds
  // one per call.)
  void testWakeOneRunsOneThread() {
    RunLog log;
    JobRunner runner;
    auto handle = runner.add({.name = "t",
                              .interval = kNever,
                              .run = [&](rapport::JobContext&) { log.ran(); },
                              .concurrency = 3});
    runner.start();
    CPPUNIT_ASSERT(log.waitForRuns(3));
    handle->wakeOne();
    CPPUNIT_ASSERT(log.waitForRuns(4));
    handle->wakeOne();
    CPPUNIT_ASSERT(log.waitForRuns(5));
    CPPUNIT_ASSERT_EQUAL(5, log.runs());
    handle->wake();  // every thread
    CPPUNIT_ASSERT(log.waitForRuns(8));
    runner.stop();
  }

  void testConcurrencyRunsThreadsSideBySide() {
    Gate gate;
    std::atomic<unsigned> workers{0};
    JobRunner runner;
    runner.add({.name = "t",
                .interval = kNever,
                .run =
                    [&](rapport::JobContext& context) {
                      workers |= 1u << context.worker();
                      gate.arrive();
                    },
                .concurrency = 3});
    runner.start();
    // All three are inside run() at the same time.
    CPPUNIT_ASSERT(gate.waitForArrivals(3));
    CPPUNIT_ASSERT_EQUAL(0b111u, workers.load());
    gate.open();
    runner.stop();
  }

  void testContextWait() {
    std::atomic<int> timedOut{-1};
    std::atomic<int> woken{-1};
    Gate waiting;
    JobRunner runner;
    auto handle =
        runner.add({.name = "t", .interval = kNever, .run = [&](rapport::JobContext& context) {
                      if (timedOut != -1) return;
                      timedOut = context.wait(1ms) ? 1 : 0;
                      waiting.arrive();
                      woken = context.wait(kNever) ? 1 : 0;
                    }});
    runner.start();
    CPPUNIT_ASSERT(waiting.waitForArrivals(1));
    waiting.open();
    handle->wake();
    runner.stop();  // returns only if the hour-long wait ended
    CPPUNIT_ASSERT_EQUAL(0, timedOut.load());
    CPPUNIT_ASSERT_EQUAL(1, woken.load());
  }

  void testStopInterruptsWaits() {
    RunLog log;
    JobRunner runner;
    runner.add({.name = "t", .interval = kNever, .run = [&](rapport::JobContext&) { log.ran(); }});
    runner.start();
    CPPUNIT_ASSERT(log.waitForRuns(1));
    const auto started = std::chrono::steady_clock::now();
    runner.stop();
    CPPUNIT_ASSERT(std::chrono::steady_clock::now() - started < kDeadline);
  }

  void testHandleOutlivesRunner() {
    rapport::JobHandle handle;
    {
      JobRunner runner;
      handle = runner.add({.name = "t", .interval = kNever, .run = [](rapport::JobContext&) {}});
      handle->wake();  // before start: harmless
      runner.start();
      runner.stop();
      runner.clear();
    }
    handle->wake();  // after the runner is gone: harmless
  }

  void testFailingJobRunsAgain() {
    RunLog log;
    JobRunner runner;
    runner.add({.name = "t", .interval = 1ms, .run = [&](rapport::JobContext&) {
                  log.ran();
                  throw std::runtime_error("boom");
                }});
    runner.start();
    CPPUNIT_ASSERT(log.waitForRuns(3));
    runner.stop();
  }

  void testRefusesBadJobs() {
    JobRunner runner;
    CPPUNIT_ASSERT_THROW(runner.add({.name = "none", .run = nullptr}), std::invalid_argument);
    CPPUNIT_ASSERT_THROW(
        runner.add({.name = "zero", .run = [](rapport::JobContext&) {}, .concurrency = 0}),
        std::invalid_argument);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(JobRunnerTest);
