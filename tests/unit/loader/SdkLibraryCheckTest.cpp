// The SDK library check: the host refuses a librapport_sdk.so of another
// major, an older minor, or another build (compiler, library, mode).
#include <cppunit/extensions/HelperMacros.h>

#include "loader/ModuleLoadError.h"
#include "loader/SdkLibraryCheck.h"
#include "loader/StampCheck.h"

using rapport::host::checkLoadedSdkLibrary;
using rapport::host::checkSdkLibrary;
using rapport::host::hostStamp;
using rapport::host::ModuleLoadError;

namespace {

// A host built against SDK 5.2.
rapport_module_stamp host() {
  rapport_module_stamp s = hostStamp();
  s.abi_major = 5;
  s.abi_minor = 2;
  return s;
}

rapport_module_stamp library(std::uint32_t major, std::uint32_t minor) {
  rapport_module_stamp s = host();
  s.abi_major = major;
  s.abi_minor = minor;
  return s;
}

std::string refusal(const rapport_module_stamp& loaded) {
  try {
    checkSdkLibrary(loaded, "/opt/lib/librapport_sdk.so.5", host());
  } catch (const ModuleLoadError& e) {
    return e.what();
  }
  return "(accepted)";
}

std::string build(const char* version, const char* mode) {
  return std::string(version) + " (gcc " + std::to_string(RAPPORT_COMPILER_MAJOR) +
         ", libstdc++ cxx11 abi 1, " + mode + " containers)";
}

}  // namespace

class SdkLibraryCheckTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(SdkLibraryCheckTest);
  CPPUNIT_TEST(testSameOrNewerMinorIsAccepted);
  CPPUNIT_TEST(testOlderMinorIsRefused);
  CPPUNIT_TEST(testOtherMajorIsRefused);
  CPPUNIT_TEST(testOtherBuildIsRefused);
  CPPUNIT_TEST(testBadIdentity);
  CPPUNIT_TEST(testTheLoadedLibraryIsAccepted);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testSameOrNewerMinorIsAccepted() {
    CPPUNIT_ASSERT_EQUAL(std::string("(accepted)"), refusal(library(5, 2)));
    CPPUNIT_ASSERT_EQUAL(std::string("(accepted)"), refusal(library(5, 7)));
  }

  void testOlderMinorIsRefused() {
    CPPUNIT_ASSERT_EQUAL("SDK library /opt/lib/librapport_sdk.so.5: SDK ABI mismatch: expected " +
                             build("5.2", "release") + ", actual " + build("5.1", "release"),
                         refusal(library(5, 1)));
  }

  void testOtherMajorIsRefused() {
    CPPUNIT_ASSERT_EQUAL("SDK library /opt/lib/librapport_sdk.so.5: SDK ABI mismatch: expected " +
                             build("5.2", "release") + ", actual " + build("6.2", "release"),
                         refusal(library(6, 2)));
    CPPUNIT_ASSERT(refusal(library(4, 9)).find("actual 4.9 (") != std::string::npos);
  }

  void testOtherBuildIsRefused() {
    rapport_module_stamp debug = library(5, 2);
    debug.debug_containers = 1;
    CPPUNIT_ASSERT_EQUAL("SDK library /opt/lib/librapport_sdk.so.5: SDK ABI mismatch: expected " +
                             build("5.2", "release") + ", actual " + build("5.2", "debug"),
                         refusal(debug));
    rapport_module_stamp other = library(5, 2);
    other.compiler_major += 1;
    CPPUNIT_ASSERT(refusal(other).find("SDK ABI mismatch") != std::string::npos);
    other = library(5, 2);
    other.cxx_library_abi = 0;
    CPPUNIT_ASSERT(refusal(other).find("cxx11 abi 0") != std::string::npos);
  }

  void testBadIdentity() {
    rapport_module_stamp bad = library(5, 2);
    bad.magic = 0;
    CPPUNIT_ASSERT_EQUAL(
        std::string("SDK library /opt/lib/librapport_sdk.so.5: not a Rapport SDK (bad identity)"),
        refusal(bad));
    bad = library(5, 2);
    bad.format = 2;
    CPPUNIT_ASSERT_EQUAL(
        std::string("SDK library /opt/lib/librapport_sdk.so.5: not a Rapport SDK (bad identity)"),
        refusal(bad));
  }

  // This test links the SDK built in this tree: it is the one the host expects.
  void testTheLoadedLibraryIsAccepted() {
    checkLoadedSdkLibrary();
    const rapport_module_stamp* identity = rapport_sdk_identity();
    CPPUNIT_ASSERT_EQUAL(std::string("rapport_sdk"), std::string(identity->name));
    CPPUNIT_ASSERT_EQUAL(
        std::to_string(RAPPORT_SDK_ABI_MAJOR) + "." + std::to_string(RAPPORT_SDK_ABI_MINOR) + ".0",
        std::string(identity->version));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(SdkLibraryCheckTest);
