#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "loader/ModuleLoadError.h"
#include "loader/StampCheck.h"

using rapport::host::checkStamp;
using rapport::host::describeBuild;
using rapport::host::hostStamp;
using rapport::host::ModuleLoadError;

namespace {

template <std::size_t N>
void setText(char (&field)[N], const std::string& text) {
  std::memset(field, 0, N);
  std::memcpy(field, text.data(), std::min(text.size(), N));
}

struct Build {
  std::uint32_t major = 1;
  std::uint32_t minor = 2;
  std::string compiler = "gcc";
  std::uint32_t compilerMajor = 12;
  std::string library = "libstdc++";
  std::uint32_t libraryAbi = 1;
  std::uint32_t debug = 0;
  std::string name = "contacts";
};

rapport_module_stamp stamp(const Build& b) {
  rapport_module_stamp s{};
  s.magic = RAPPORT_MODULE_MAGIC;
  s.format = RAPPORT_STAMP_FORMAT;
  s.size = sizeof s;
  s.abi_major = b.major;
  s.abi_minor = b.minor;
  s.compiler_major = b.compilerMajor;
  s.cxx_library_abi = b.libraryAbi;
  s.debug_containers = b.debug;
  setText(s.compiler, b.compiler);
  setText(s.cxx_library, b.library);
  setText(s.name, b.name);
  setText(s.version, "2.1.0");
  return s;
}

// A host at SDK ABI 1.2 built with gcc 12, libstdc++ and the C++11 string ABI.
const rapport_module_stamp kHost = stamp({.name = ""});

std::string refusal(const rapport_module_stamp& s) {
  try {
    checkStamp(s, "m/rapport_contacts.so", kHost);
  } catch (const ModuleLoadError& e) {
    return e.what();
  }
  return "(accepted)";
}

std::string refusal(const std::vector<unsigned char>& bytes) {
  try {
    checkStamp(bytes, "m/rapport_contacts.so", kHost);
  } catch (const ModuleLoadError& e) {
    return e.what();
  }
  return "(accepted)";
}

std::vector<unsigned char> bytesOf(const rapport_module_stamp& s) {
  const auto* p = reinterpret_cast<const unsigned char*>(&s);
  return {p, p + sizeof s};
}

const std::string kExpected =
    "module file m/rapport_contacts.so: SDK ABI mismatch: expected 1.2 (gcc 12, libstdc++ cxx11 "
    "abi 1, release containers), actual ";

}  // namespace

class StampCheckTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(StampCheckTest);
  CPPUNIT_TEST(testOwnStampIsAccepted);
  CPPUNIT_TEST(testStampMacroRecordsThisBuild);
  CPPUNIT_TEST(testOlderOrEqualMinorIsAccepted);
  CPPUNIT_TEST(testNewerMinorIsRefused);
  CPPUNIT_TEST(testOtherMajorIsRefused);
  CPPUNIT_TEST(testOtherCompilerIsRefused);
  CPPUNIT_TEST(testOtherLibraryOrModeIsRefused);
  CPPUNIT_TEST(testDescribesLibcxx);
  CPPUNIT_TEST(testBadMagic);
  CPPUNIT_TEST(testMissingName);
  CPPUNIT_TEST(testDamagedStamp);
  CPPUNIT_TEST(testBytes);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testOwnStampIsAccepted() {
    rapport_module_stamp own = hostStamp();
    setText(own.name, "probe");
    setText(own.version, "1.0.0");
    const auto copied = checkStamp(own, "rapport_probe.so");
    CPPUNIT_ASSERT_EQUAL(std::string("probe"), copied.name);
    CPPUNIT_ASSERT_EQUAL(std::string("1.0.0"), copied.version);
    CPPUNIT_ASSERT_EQUAL(std::uint32_t(RAPPORT_SDK_ABI_MAJOR), copied.abiMajor);
    CPPUNIT_ASSERT_EQUAL(std::uint32_t(RAPPORT_SDK_ABI_MINOR), copied.abiMinor);
    CPPUNIT_ASSERT_EQUAL(std::string(RAPPORT_COMPILER_FAMILY), copied.compiler);
    CPPUNIT_ASSERT_EQUAL(std::string(RAPPORT_CXX_LIBRARY), copied.cxxLibrary);
    CPPUNIT_ASSERT_EQUAL(RAPPORT_DEBUG_CONTAINERS != 0, copied.debugContainers);
  }

  // This project builds with Debian 12's g++ 12 and libstdc++, release mode.
  void testStampMacroRecordsThisBuild() {
    CPPUNIT_ASSERT_EQUAL(
        std::to_string(RAPPORT_SDK_ABI_MAJOR) + "." + std::to_string(RAPPORT_SDK_ABI_MINOR) +
            " (gcc " + std::to_string(__GNUC__) + ", libstdc++ cxx11 abi 1, release containers)",
        describeBuild(hostStamp()));
  }

  void testOlderOrEqualMinorIsAccepted() {
    CPPUNIT_ASSERT_EQUAL(std::string("(accepted)"), refusal(stamp({.minor = 0})));
    CPPUNIT_ASSERT_EQUAL(std::string("(accepted)"), refusal(stamp({.minor = 2})));
  }

  void testNewerMinorIsRefused() {
    CPPUNIT_ASSERT_EQUAL(kExpected + "1.3 (gcc 12, libstdc++ cxx11 abi 1, release containers)",
                         refusal(stamp({.minor = 3})));
  }

  void testOtherMajorIsRefused() {
    CPPUNIT_ASSERT_EQUAL(kExpected + "2.0 (gcc 12, libstdc++ cxx11 abi 1, release containers)",
                         refusal(stamp({.major = 2, .minor = 0})));
    CPPUNIT_ASSERT_EQUAL(kExpected + "0.2 (gcc 12, libstdc++ cxx11 abi 1, release containers)",
                         refusal(stamp({.major = 0})));
  }

  void testOtherCompilerIsRefused() {
    CPPUNIT_ASSERT_EQUAL(kExpected + "1.2 (gcc 13, libstdc++ cxx11 abi 1, release containers)",
                         refusal(stamp({.compilerMajor = 13})));
    CPPUNIT_ASSERT_EQUAL(kExpected + "1.2 (clang 12, libstdc++ cxx11 abi 1, release containers)",
                         refusal(stamp({.compiler = "clang"})));
  }

  void testOtherLibraryOrModeIsRefused() {
    CPPUNIT_ASSERT_EQUAL(kExpected + "1.2 (gcc 12, libstdc++ cxx11 abi 0, release containers)",
                         refusal(stamp({.libraryAbi = 0})));
    CPPUNIT_ASSERT_EQUAL(kExpected + "1.2 (gcc 12, libc++ abi 1, release containers)",
                         refusal(stamp({.library = "libc++"})));
    CPPUNIT_ASSERT_EQUAL(kExpected + "1.2 (gcc 12, libstdc++ cxx11 abi 1, debug containers)",
                         refusal(stamp({.debug = 1})));
  }

  void testDescribesLibcxx() {
    CPPUNIT_ASSERT_EQUAL(std::string("5.1 (clang 17, libc++ abi 2, debug containers)"),
                         describeBuild(stamp({.major = 5,
                                              .minor = 1,
                                              .compiler = "clang",
                                              .compilerMajor = 17,
                                              .library = "libc++",
                                              .libraryAbi = 2,
                                              .debug = 1})));
  }

  void testBadMagic() {
    rapport_module_stamp s = stamp({});
    s.magic = 0x7f454c46u;
    CPPUNIT_ASSERT_EQUAL(
        std::string("module file m/rapport_contacts.so: not a Rapport module (bad stamp magic)"),
        refusal(s));
  }

  void testMissingName() {
    CPPUNIT_ASSERT_EQUAL(
        std::string("module file m/rapport_contacts.so: not a Rapport module (stamp has no name)"),
        refusal(stamp({.name = ""})));
  }

  void testDamagedStamp() {
    rapport_module_stamp s = stamp({});
    std::memset(s.name, 'x', sizeof s.name);  // no terminating NUL
    CPPUNIT_ASSERT_EQUAL(std::string("module file m/rapport_contacts.so: not a Rapport module "
                                     "(damaged stamp: unterminated text)"),
                         refusal(s));
    s = stamp({});
    s.size = 12;
    CPPUNIT_ASSERT_EQUAL(std::string("module file m/rapport_contacts.so: not a Rapport module "
                                     "(damaged stamp: format 1, size 12)"),
                         refusal(s));
  }

  void testBytes() {
    const rapport_module_stamp good = stamp({});
    CPPUNIT_ASSERT_EQUAL(std::string("(accepted)"), refusal(bytesOf(good)));

    std::vector<unsigned char> bytes = bytesOf(good);
    bytes.resize(2);
    CPPUNIT_ASSERT_EQUAL(
        std::string("module file m/rapport_contacts.so: not a Rapport module (bad stamp magic)"),
        refusal(bytes));
    bytes = bytesOf(good);
    bytes.resize(10);
    CPPUNIT_ASSERT_EQUAL(std::string("module file m/rapport_contacts.so: not a Rapport module "
                                     "(damaged stamp: 10 bytes)"),
                         refusal(bytes));
    bytes = bytesOf(good);
    bytes.push_back(0);
    CPPUNIT_ASSERT_EQUAL(
        "module file m/rapport_contacts.so: not a Rapport module (damaged "
        "stamp: " +
            std::to_string(sizeof good + 1) + " bytes, format 1 has " +
            std::to_string(sizeof good) + ")",
        refusal(bytes));

    // A stamp of a future format: only its stable prefix is read, to say which SDK.
    rapport_module_stamp future = stamp({.major = 6, .minor = 0});
    future.format = 2;
    bytes = bytesOf(future);
    bytes.resize(24);
    CPPUNIT_ASSERT_EQUAL(std::string("module file m/rapport_contacts.so: SDK ABI mismatch: "
                                     "expected 1.2 (stamp format 1), actual 6.0 (stamp format 2)"),
                         refusal(bytes));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(StampCheckTest);
