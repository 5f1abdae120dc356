// WorkerPool: tasks run on its threads; a full queue refuses (the front end
// then answers 503); stop() still runs what was queued; join() gives up on
// a task that does not return.
#include <cppunit/extensions/HelperMacros.h>

#include <atomic>
#include <chrono>
#include <future>
#include <latch>
#include <thread>

#include "http/server/WorkerPool.h"

using rapport::host::WorkerPool;

class WorkerPoolTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(WorkerPoolTest);
  CPPUNIT_TEST(testTasksRunOnWorkers);
  CPPUNIT_TEST(testFullQueueRefuses);
  CPPUNIT_TEST(testStopRunsWhatWasQueued);
  CPPUNIT_TEST(testJoinGivesUpOnAStuckTask);
  CPPUNIT_TEST(testInvalidSizes);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testTasksRunOnWorkers() {
    WorkerPool pool(2, 16);
    std::promise<std::thread::id> ran;
    CPPUNIT_ASSERT(pool.submit([&] { ran.set_value(std::this_thread::get_id()); }));
    CPPUNIT_ASSERT(ran.get_future().get() != std::this_thread::get_id());
  }

  void testFullQueueRefuses() {
    WorkerPool pool(1, 1);
    std::latch entered(1);
    std::latch release(1);
    CPPUNIT_ASSERT(pool.submit([&] {
      entered.count_down();
      release.wait();
    }));
    entered.wait();  // the only worker is busy: the next task waits in the queue
    std::atomic<int> ran{0};
    CPPUNIT_ASSERT(pool.submit([&] { ++ran; }));
    CPPUNIT_ASSERT(!pool.submit([&] { ++ran; }));
    release.count_down();
    pool.stop();
    CPPUNIT_ASSERT(pool.join(std::chrono::seconds(10)));
    CPPUNIT_ASSERT_EQUAL(1, ran.load());
  }

  void testStopRunsWhatWasQueued() {
    WorkerPool pool(1, 100);
    std::latch release(1);
    std::atomic<int> ran{0};
    CPPUNIT_ASSERT(pool.submit([&] { release.wait(); }));
    for (int i = 0; i < 10; ++i) CPPUNIT_ASSERT(pool.submit([&] { ++ran; }));
    pool.stop();
    CPPUNIT_ASSERT(!pool.submit([&] { ++ran; }));
    release.count_down();
    CPPUNIT_ASSERT(pool.join(std::chrono::seconds(10)));
    CPPUNIT_ASSERT_EQUAL(10, ran.load());
  }

  void testJoinGivesUpOnAStuckTask() {
    auto release = std::make_shared<std::latch>(1);
    auto pool = std::make_unique<WorkerPool>(1, 1);
    std::latch entered(1);
    CPPUNIT_ASSERT(pool->submit([&entered, release] {
      entered.count_down();
      release->wait();
    }));
    entered.wait();
    pool->stop();
    CPPUNIT_ASSERT(!pool->join(std::chrono::milliseconds(50)));
    // The thread was detached and still uses the pool: its owner keeps it
    // alive (HttpServer leaks it at exit), as this test does.
    [[maybe_unused]] WorkerPool* kept = pool.release();
    release->count_down();
  }

  void testInvalidSizes() {
    CPPUNIT_ASSERT_THROW(WorkerPool(0, 1), std::invalid_argument);
    CPPUNIT_ASSERT_THROW(WorkerPool(1, 0), std::invalid_argument);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(WorkerPoolTest);
