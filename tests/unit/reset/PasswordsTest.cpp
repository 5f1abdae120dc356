// The common-password list, argon2 needsRehash and the hashing gate
// (auth.argon2.max_concurrent / queue_timeout).
#include <cppunit/extensions/HelperMacros.h>

#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <thread>

#include "accounts/PasswordHasher.h"
#include "accounts/passwords/CommonPasswords.h"
#include "accounts/passwords/HashingGate.h"
#include "rapport/error.h"

using rapport::host::accounts::Argon2Params;
using rapport::host::accounts::PasswordHasher;
using rapport::host::accounts::passwords::HashingGate;
namespace passwords = rapport::host::accounts::passwords;

namespace {

// Polls `condition` every millisecond for up to five seconds.
template <typename Condition>
bool eventually(Condition condition) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return condition();
}

std::string retryAfter(const rapport::Error& e) {
  for (const auto& [name, value] : e.headers()) {
    if (name == "Retry-After") return value;
  }
  return "";
}

}  // namespace

class PasswordsTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(PasswordsTest);
  CPPUNIT_TEST(testCommonListSize);
  CPPUNIT_TEST(testCommonMembership);
  CPPUNIT_TEST(testNeedsRehash);
  CPPUNIT_TEST(testGateKeysAreRangeChecked);
  CPPUNIT_TEST(testGateAdmitsUpToCapacity);
  CPPUNIT_TEST(testGateWaiterGetsTheFreedSlot);
  CPPUNIT_TEST(testGateTimesOutWith503);
  CPPUNIT_TEST(testHasherUsesTheGate);
  CPPUNIT_TEST_SUITE_END();

 public:
  // zxcvbn's 30,000 passwords, of which 11,611 have 8 to 128 characters.
  void testCommonListSize() { CPPUNIT_ASSERT_EQUAL(std::size_t(11611), passwords::commonCount()); }

  void testCommonMembership() {
    for (const char* common : {"password", "password123", "PASSWORD123", "PassWord123", "12345678",
                               "iloveyou", "qwertyuiop", "trustno1", "1qaz2wsx"}) {
      CPPUNIT_ASSERT_MESSAGE(common, passwords::isCommon(common));
    }
    for (const char* rare :
         {"correct horse battery staple", "ann-s3cret-phrase", "password1234567x", "p", "",
          "1234567" /* 7 characters: too short to be listed */, " password123", "password123 "}) {
      CPPUNIT_ASSERT_MESSAGE(rare, !passwords::isCommon(rare));
    }
    // Non-ASCII bytes are compared as they are (only A-Z fold).
    CPPUNIT_ASSERT(!passwords::isCommon("pässword123"));
  }

  void testNeedsRehash() {
    const PasswordHasher two;  // t=2 (the default)
    const std::string hash = two.hash("correct horse battery");
    CPPUNIT_ASSERT(!two.needsRehash(hash));
    Argon2Params three;
    three.iterations = 3;
    const PasswordHasher slower(three);
    CPPUNIT_ASSERT(slower.needsRehash(hash));
    CPPUNIT_ASSERT(!slower.needsRehash(slower.hash("correct horse battery")));
    Argon2Params bigger;
    bigger.memoryKib = 19456 * 2;
    CPPUNIT_ASSERT(PasswordHasher(bigger).needsRehash(hash));
    Argon2Params wider;
    wider.parallelism = 2;
    CPPUNIT_ASSERT(PasswordHasher(wider).needsRehash(hash));
    // Only the cost matters, not the concurrency settings.
    Argon2Params gated;
    gated.maxConcurrent = 1;
    gated.queueTimeoutMs = 10;
    CPPUNIT_ASSERT(!PasswordHasher(gated).needsRehash(hash));
    // Anything that is not our argon2id string is rehashed (after a verify
    // that cannot succeed on it anyway).
    for (const std::string& bad :
         {std::string(""), std::string("not a hash"), std::string("$2y$10$abcdefghijklmnop"),
          std::string("$argon2i$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2g"),
          std::string("$argon2id$v=16$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2g"),
          std::string("$argon2id$v=19$m=19456,t=2$c2FsdHNhbHQ$aGFzaGhhc2g"),
          std::string("$argon2id$v=19$m=19456x,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2g")}) {
      CPPUNIT_ASSERT_MESSAGE(bad, two.needsRehash(bad));
    }
    CPPUNIT_ASSERT(!two.needsRehash("$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2g"));
  }

  void testGateKeysAreRangeChecked() {
    Argon2Params p;
    p.maxConcurrent = 1025;
    CPPUNIT_ASSERT_THROW(p.validate(), std::invalid_argument);
    p.maxConcurrent = 0;  // the number of cores
    p.queueTimeoutMs = 60001;
    CPPUNIT_ASSERT_THROW(p.validate(), std::invalid_argument);
    p.queueTimeoutMs = 0;  // no waiting at all
    p.validate();
    CPPUNIT_ASSERT(HashingGate(0, std::chrono::milliseconds(1)).capacity() >= 1);
  }

  void testGateAdmitsUpToCapacity() {
    HashingGate gate(2, std::chrono::milliseconds(0));
    HashingGate::Permit a = gate.enter();
    HashingGate::Permit b = gate.enter();
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), gate.running());
    const rapport::Error e = expectRefusal(gate);
    CPPUNIT_ASSERT_EQUAL(503, e.status());
    a.release();
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), gate.running());
    HashingGate::Permit c = gate.enter();  // the freed slot
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), gate.running());
  }

  // N + 1 at once: the last one waits, and runs as soon as one finishes.
  void testGateWaiterGetsTheFreedSlot() {
    HashingGate gate(1, std::chrono::seconds(30));
    auto held = std::make_unique<HashingGate::Permit>(gate.enter());
    std::promise<void> admitted;
    std::thread waiter([&] {
      HashingGate::Permit permit = gate.enter();
      admitted.set_value();
    });
    CPPUNIT_ASSERT(eventually([&] { return gate.waiting() == 1; }));
    auto done = admitted.get_future();
    CPPUNIT_ASSERT(done.wait_for(std::chrono::milliseconds(50)) == std::future_status::timeout);
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), gate.running());
    held.reset();  // the first computation ends
    CPPUNIT_ASSERT(done.wait_for(std::chrono::seconds(5)) == std::future_status::ready);
    waiter.join();
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), gate.running());
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), gate.waiting());
  }

  void testGateTimesOutWith503() {
    HashingGate gate(1, std::chrono::milliseconds(100));
    HashingGate::Permit held = gate.enter();
    const auto started = std::chrono::steady_clock::now();
    const rapport::Error e = expectRefusal(gate);
    const auto waited = std::chrono::steady_clock::now() - started;
    CPPUNIT_ASSERT_EQUAL(503, e.status());
    CPPUNIT_ASSERT_EQUAL(std::string("1"), retryAfter(e));
    CPPUNIT_ASSERT_EQUAL(rapport::Error::genericMessage(503), std::string(e.what()));
    CPPUNIT_ASSERT(waited >= std::chrono::milliseconds(100));
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), gate.waiting());
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), gate.running());
  }

  // hash, verify and burn all pass through the hasher's gate: with one slot
  // and no queue, a second computation during the first is refused.
  void testHasherUsesTheGate() {
    Argon2Params p;
    p.maxConcurrent = 1;
    p.queueTimeoutMs = 0;
    const PasswordHasher hasher(p);
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), hasher.gate().capacity());
    const std::string hash = hasher.hash("correct horse battery");
    CPPUNIT_ASSERT(hasher.verify("correct horse battery", hash));
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), hasher.gate().running());
    // Keep the one slot busy with verifications on another thread, then
    // check that a hash refused with 503 is seen at least once.
    std::atomic<bool> stop{false};
    std::thread busy([&] {
      while (!stop) {
        try {
          hasher.burn("x");
        } catch (const rapport::Error&) {
        }
      }
    });
    bool refused = false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!refused && std::chrono::steady_clock::now() < deadline) {
      if (hasher.gate().running() == 0) {
        std::this_thread::yield();
        continue;
      }
      try {
        hasher.verify("correct horse battery", hash);
      } catch (const rapport::Error& e) {
        refused = e.status() == 503;
      }
    }
    stop = true;
    busy.join();
    CPPUNIT_ASSERT(refused);
  }

 private:
  static rapport::Error expectRefusal(HashingGate& gate) {
    try {
      HashingGate::Permit permit = gate.enter();
    } catch (const rapport::Error& e) {
      return e;
    }
    CPPUNIT_FAIL("the gate admitted one too many");
    throw std::logic_error("unreachable");
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(PasswordsTest);
