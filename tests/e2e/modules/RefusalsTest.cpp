// Modules rapportd refuses at start-up (decisions §11): it exits non-zero,
// never crashes, and says why in ONE error line that names the module.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/common/Api.h"

using namespace rapport::e2e;

namespace {

struct Refusal {
  std::string enabled;
  std::string dirs;
  std::vector<std::string> expected;  // fragments of the one error line
};

void assertRefused(const Refusal& refusal) {
  std::string output;
  const int code = ServerProcess::runToCompletion(
      {{"modules.dir", refusal.dirs}, {"modules.enabled", refusal.enabled}}, {}, output);
  const std::string context = "modules.enabled=" + refusal.enabled + "\n" + output;
  CPPUNIT_ASSERT_MESSAGE("exit 0 for a refused module: " + context, code != 0);
  CPPUNIT_ASSERT_MESSAGE("killed by a signal (a crash?): " + context, code < 128);
  CPPUNIT_ASSERT_MESSAGE("it listened anyway: " + context,
                         linesContaining(output, "msg=listening").empty());
  const auto errors = linesContaining(output, "level=error");
  CPPUNIT_ASSERT_EQUAL_MESSAGE("one error line: " + context, std::size_t(1), errors.size());
  for (const auto& fragment : refusal.expected) {
    CPPUNIT_ASSERT_MESSAGE("'" + fragment + "' missing: " + context,
                           errors.front().find(fragment) != std::string::npos);
  }
}

}  // namespace

class RefusalsTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(RefusalsTest);
  CPPUNIT_TEST(testMissingDependency);
  CPPUNIT_TEST(testDependencyNotEnabled);
  CPPUNIT_TEST(testAbiMismatch);
  CPPUNIT_TEST(testDuplicateModule);
  CPPUNIT_TEST(testModuleNotFound);
  CPPUNIT_TEST(testWrongName);
  CPPUNIT_TEST(testNotAModule);
  CPPUNIT_TEST(testDependencyCycle);
  CPPUNIT_TEST(testFactoryThrows);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testMissingDependency() {
    assertRefused({"needs_missing",
                   testModulesDir(),
                   {"module 'needs_missing' requires module 'nonexistent', which is not enabled"}});
  }

  void testDependencyNotEnabled() {
    assertRefused({"probe_dependent",
                   testModulesDir(),
                   {"module 'probe_dependent' requires module 'probe', which is not enabled"}});
  }

  void testAbiMismatch() {
    assertRefused({"bad_abi",
                   testModulesDir(),
                   {"rapport_bad_abi.so", "SDK ABI mismatch: expected", "actual 99.0"}});
  }

  void testDuplicateModule() {
    assertRefused({"probe",
                   testModulesDir() + ":" + testModulesCopyDir(),
                   {"duplicate module 'probe'", testModulesDir(), testModulesCopyDir()}});
  }

  void testModuleNotFound() {
    assertRefused({"nonexistent",
                   testModulesDir(),
                   {"module 'nonexistent' not found", "rapport_nonexistent.so"}});
  }

  void testWrongName() {
    assertRefused({"wrong_name",
                   testModulesDir(),
                   {"rapport_wrong_name.so", "declares module 'probe', expected 'wrong_name'"}});
  }

  void testNotAModule() {
    assertRefused(
        {"not_a_module", testModulesDir(), {"rapport_not_a_module.so", "not a Rapport module"}});
  }

  void testDependencyCycle() {
    assertRefused(
        {"cycle_a, cycle_b", testModulesDir(), {"module dependency cycle", "cycle_a", "cycle_b"}});
  }

  void testFactoryThrows() {
    assertRefused({"create_throws",
                   testModulesDir(),
                   {"rapport_create_throws.so", "no configuration for create_throws"}});
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(RefusalsTest);
