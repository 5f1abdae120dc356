// PasswordHasher: argon2id PHC strings, verification, parameter checks.
#include <cppunit/extensions/HelperMacros.h>

#include <time.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

#include "accounts/PasswordHasher.h"

using rapport::host::accounts::Argon2Params;
using rapport::host::accounts::PasswordHasher;

class PasswordHasherTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(PasswordHasherTest);
  CPPUNIT_TEST(testHashIsPhcArgon2idWithDefaults);
  CPPUNIT_TEST(testVerify);
  CPPUNIT_TEST(testSaltMakesHashesDiffer);
  CPPUNIT_TEST(testMalformedHashIsMismatch);
  CPPUNIT_TEST(testCustomParamsAreEncoded);
  CPPUNIT_TEST(testVerifiesHashesOfOtherParams);
  CPPUNIT_TEST(testRefusesParamsBelowOwaspMinimum);
  CPPUNIT_TEST(testBurn);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testHashIsPhcArgon2idWithDefaults() {
    const PasswordHasher hasher;
    const std::string encoded = hasher.hash("correct horse battery staple");
    const std::string prefix = "$argon2id$v=19$m=19456,t=2,p=1$";
    CPPUNIT_ASSERT_EQUAL(prefix, encoded.substr(0, prefix.size()));
    // $<salt 16 bytes = 22 base64 chars>$<hash 32 bytes = 43 base64 chars>
    const std::string rest = encoded.substr(prefix.size());
    const auto dollar = rest.find('$');
    CPPUNIT_ASSERT(dollar != std::string::npos);
    CPPUNIT_ASSERT_EQUAL(std::size_t{22}, dollar);
    CPPUNIT_ASSERT_EQUAL(std::size_t{43}, rest.size() - dollar - 1);
    CPPUNIT_ASSERT(encoded.find("correct horse") == std::string::npos);
  }

  void testVerify() {
    const PasswordHasher hasher;
    const std::string encoded = hasher.hash("s3cret-pässword");
    CPPUNIT_ASSERT(hasher.verify("s3cret-pässword", encoded));
    CPPUNIT_ASSERT(!hasher.verify("s3cret-password", encoded));
    CPPUNIT_ASSERT(!hasher.verify("", encoded));
    CPPUNIT_ASSERT(!hasher.verify("s3cret-pässword ", encoded));
  }

  void testSaltMakesHashesDiffer() {
    const PasswordHasher hasher;
    const std::string a = hasher.hash("same password");
    const std::string b = hasher.hash("same password");
    CPPUNIT_ASSERT(a != b);
    CPPUNIT_ASSERT(hasher.verify("same password", a));
    CPPUNIT_ASSERT(hasher.verify("same password", b));
  }

  void testMalformedHashIsMismatch() {
    const PasswordHasher hasher;
    const std::string good = hasher.hash("password1");
    CPPUNIT_ASSERT(!hasher.verify("password1", ""));
    CPPUNIT_ASSERT(!hasher.verify("password1", "not a hash"));
    CPPUNIT_ASSERT(!hasher.verify("password1", good.substr(0, good.size() - 10)));
    CPPUNIT_ASSERT(!hasher.verify("password1", "$argon2id$v=19$m=19456,t=2,p=1$$"));
    // Another argon2 variant is not accepted by the argon2id verifier.
    std::string argon2i = good;
    argon2i.replace(0, 9, "$argon2i");
    CPPUNIT_ASSERT(!hasher.verify("password1", argon2i));
    CPPUNIT_ASSERT(!hasher.verify("password1", "$2y$10$abcdefghijklmnopqrstuv"));
  }

  void testCustomParamsAreEncoded() {
    const PasswordHasher hasher(Argon2Params{20480, 3, 2});
    const std::string encoded = hasher.hash("password1");
    CPPUNIT_ASSERT_EQUAL(std::string("$argon2id$v=19$m=20480,t=3,p=2$"), encoded.substr(0, 31));
    CPPUNIT_ASSERT(hasher.verify("password1", encoded));
  }

  void testVerifiesHashesOfOtherParams() {
    // Raising the cost later must not lock out users hashed with the old one.
    const std::string old = PasswordHasher().hash("password1");
    const PasswordHasher stronger(Argon2Params{24576, 3, 1});
    CPPUNIT_ASSERT(stronger.verify("password1", old));
  }

  void testRefusesParamsBelowOwaspMinimum() {
    CPPUNIT_ASSERT_THROW(PasswordHasher(Argon2Params{19455, 2, 1}), std::invalid_argument);
    CPPUNIT_ASSERT_THROW(PasswordHasher(Argon2Params{19456, 1, 1}), std::invalid_argument);
    CPPUNIT_ASSERT_THROW(PasswordHasher(Argon2Params{19456, 2, 0}), std::invalid_argument);
    try {
      Argon2Params{4096, 2, 1}.validate();
      CPPUNIT_FAIL("expected std::invalid_argument");
    } catch (const std::invalid_argument& e) {
      CPPUNIT_ASSERT(std::string(e.what()).find("auth.argon2.memory_kib") != std::string::npos);
    }
  }

  // burn() spends what one verify() spends, so that a login for an unknown
  // e-mail takes as long as one with a wrong password. Measured in this
  // thread's CPU time (argon2 with p=1 runs in the calling thread), which
  // other processes on a busy machine do not inflate: the cheapest of three
  // burns costs between half and twice the cheapest of three verifications.
  // A burn that hashed nothing, or with cheaper parameters, costs a small
  // fraction of one.
  void testBurn() {
    const PasswordHasher hasher;
    const std::string encoded = hasher.hash("the real password");
    auto verifyCost = std::chrono::nanoseconds::max();
    auto burnCost = std::chrono::nanoseconds::max();
    for (int i = 0; i < 3; ++i) {
      verifyCost = std::min(verifyCost, threadCpuTime([&] {
                              CPPUNIT_ASSERT(!hasher.verify("a wrong password", encoded));
                            }));
      burnCost = std::min(burnCost, threadCpuTime([&] { hasher.burn(i == 1 ? "" : "anything"); }));
    }
    const std::string costs = "burn " + std::to_string(burnCost.count()) + " ns, verify " +
                              std::to_string(verifyCost.count()) + " ns of CPU";
    CPPUNIT_ASSERT_MESSAGE(costs, burnCost * 2 >= verifyCost);
    CPPUNIT_ASSERT_MESSAGE(costs, burnCost <= verifyCost * 2);
  }

 private:
  // The CPU time this thread spends running `work`.
  template <typename Work>
  static std::chrono::nanoseconds threadCpuTime(Work work) {
    const auto now = [] {
      timespec t{};
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
      return std::chrono::seconds(t.tv_sec) + std::chrono::nanoseconds(t.tv_nsec);
    };
    const auto start = now();
    work();
    return now() - start;
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(PasswordHasherTest);
