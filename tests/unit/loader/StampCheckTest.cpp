#include <cppunit/extensions/HelperMacros.h>

#include "loader/ModuleLoadError.h"
#include "loader/StampCheck.h"

using rapport::host::checkStamp;
using rapport::host::hostStamp;
using rapport::host::ModuleLoadError;

namespace {

// A host at SDK ABI 1.2 built with gcc 12 and the C++11 string ABI.
const rapport_module_stamp kHost{RAPPORT_MODULE_MAGIC, 1, 2, 12, 1, "", ""};

rapport_module_stamp stamp(std::uint32_t major, std::uint32_t minor, std::uint32_t compiler = 12,
                           std::uint32_t cxx11 = 1) {
  return {RAPPORT_MODULE_MAGIC, major, minor, compiler, cxx11, "contacts", "2.1.0"};
}

std::string refusal(const rapport_module_stamp& s) {
  try {
    checkStamp(s, "m/rapport_contacts.so", kHost);
  } catch (const ModuleLoadError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

class StampCheckTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(StampCheckTest);
  CPPUNIT_TEST(testOwnStampIsAccepted);
  CPPUNIT_TEST(testOlderOrEqualMinorIsAccepted);
  CPPUNIT_TEST(testNewerMinorIsRefused);
  CPPUNIT_TEST(testOtherMajorIsRefused);
  CPPUNIT_TEST(testOtherCompilerOrStringAbiIsRefused);
  CPPUNIT_TEST(testBadMagic);
  CPPUNIT_TEST(testMissingName);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testOwnStampIsAccepted() {
    rapport_module_stamp own = hostStamp();
    own.name = "probe";
    own.version = "1.0.0";
    const auto copied = checkStamp(own, "rapport_probe.so");
    CPPUNIT_ASSERT_EQUAL(std::string("probe"), copied.name);
    CPPUNIT_ASSERT_EQUAL(std::string("1.0.0"), copied.version);
    CPPUNIT_ASSERT_EQUAL(std::uint32_t(RAPPORT_SDK_ABI_MAJOR), copied.abiMajor);
  }

  void testOlderOrEqualMinorIsAccepted() {
    CPPUNIT_ASSERT_EQUAL(std::string("(accepted)"), refusal(stamp(1, 0)));
    CPPUNIT_ASSERT_EQUAL(std::string("(accepted)"), refusal(stamp(1, 2)));
  }

  void testNewerMinorIsRefused() {
    CPPUNIT_ASSERT_EQUAL(std::string("module file m/rapport_contacts.so: SDK ABI mismatch: "
                                     "expected 1.2 (gcc 12, cxx11 abi 1), "
                                     "actual 1.3 (gcc 12, cxx11 abi 1)"),
                         refusal(stamp(1, 3)));
  }

  void testOtherMajorIsRefused() {
    CPPUNIT_ASSERT_EQUAL(std::string("module file m/rapport_contacts.so: SDK ABI mismatch: "
                                     "expected 1.2 (gcc 12, cxx11 abi 1), "
                                     "actual 2.0 (gcc 12, cxx11 abi 1)"),
                         refusal(stamp(2, 0)));
    CPPUNIT_ASSERT(refusal(stamp(0, 2)).find("SDK ABI mismatch") != std::string::npos);
  }

  void testOtherCompilerOrStringAbiIsRefused() {
    CPPUNIT_ASSERT_EQUAL(std::string("module file m/rapport_contacts.so: SDK ABI mismatch: "
                                     "expected 1.2 (gcc 12, cxx11 abi 1), "
                                     "actual 1.2 (gcc 13, cxx11 abi 1)"),
                         refusal(stamp(1, 2, 13)));
    CPPUNIT_ASSERT_EQUAL(std::string("module file m/rapport_contacts.so: SDK ABI mismatch: "
                                     "expected 1.2 (gcc 12, cxx11 abi 1), "
                                     "actual 1.2 (gcc 12, cxx11 abi 0)"),
                         refusal(stamp(1, 2, 12, 0)));
  }

  void testBadMagic() {
    rapport_module_stamp s = stamp(1, 2);
    s.magic = 0x7f454c46u;
    CPPUNIT_ASSERT_EQUAL(
        std::string("module file m/rapport_contacts.so: not a Rapport module (bad stamp magic)"),
        refusal(s));
  }

  void testMissingName() {
    rapport_module_stamp s = stamp(1, 2);
    s.name = nullptr;
    CPPUNIT_ASSERT_EQUAL(
        std::string("module file m/rapport_contacts.so: not a Rapport module (stamp has no name)"),
        refusal(s));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(StampCheckTest);
