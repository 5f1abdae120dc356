// Modules rapportd refuses at start-up (decisions §11): it exits non-zero,
// never crashes, and says why in ONE error line that names the module.
#include <cppunit/extensions/HelperMacros.h>

#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>

#include "e2e/common/Api.h"

using namespace rapport::e2e;

namespace {

struct Refusal {
  std::string enabled;
  std::string dirs;
  std::vector<std::string> expected;  // fragments of the one error line
};

// Runs rapportd with `refusal` (and `extra` settings), asserts it refused to
// start with one error line holding every expected fragment; returns its log.
std::string assertRefused(const Refusal& refusal, ServerProcess::Settings extra = {}) {
  std::string output;
  extra["modules.dir"] = refusal.dirs;
  extra["modules.enabled"] = refusal.enabled;
  const int code = ServerProcess::runToCompletion(extra, {}, output);
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
  return output;
}

// The probe module's start() and stop() log lines, in order, from `output`.
std::vector<std::string> probeLifecycle(const std::string& output) {
  std::vector<std::string> seen;
  for (const auto& line : linesContaining(output, "module=probe")) {
    if (line.find("msg=\"probe started\"") != std::string::npos) seen.push_back("started");
    if (line.find("msg=\"probe stopped\"") != std::string::npos) seen.push_back("stopped");
  }
  return seen;
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
  CPPUNIT_TEST(testStartThrowsStopsTheStartedModules);
  CPPUNIT_TEST(testPortTakenStopsTheStartedModules);
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

  // probe starts first (start_throws depends on it); when start_throws fails,
  // the host stops probe before it exits.
  void testStartThrowsStopsTheStartedModules() {
    const std::string output =
        assertRefused({"probe,start_throws",
                       testModulesDir(),
                       {"module 'start_throws' failed to start", "start_throws cannot start"}});
    const std::vector<std::string> expected = {"started", "stopped"};
    CPPUNIT_ASSERT_MESSAGE(output, probeLifecycle(output) == expected);
  }

  // The port is taken: the modules started before the listen are stopped.
  void testPortTakenStopsTheStartedModules() {
    Poco::Net::ServerSocket taken(Poco::Net::SocketAddress("127.0.0.1", 0));
    const std::string port = std::to_string(taken.address().port());
    const std::string output =
        assertRefused({"probe", testModulesDir(), {"cannot listen on 127.0.0.1:" + port, "in use"}},
                      {{"server.port", port}});
    const std::vector<std::string> expected = {"started", "stopped"};
    CPPUNIT_ASSERT_MESSAGE(output, probeLifecycle(output) == expected);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(RefusalsTest);
