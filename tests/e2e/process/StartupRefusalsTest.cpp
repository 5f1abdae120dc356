// What rapportd refuses at start-up that the loader unit tests cannot show in
// the real process (issue 9, "Refusals"; abi.h): a module whose setup() throws,
// a module refused by its stamp whose code must never run, and a
// librapport_sdk.so other than the one rapportd was built against. Each exits
// non-zero (never by a signal), serves nothing, and says why in ONE error line.
#include <cppunit/extensions/HelperMacros.h>

#include <filesystem>

#include "e2e/common/Api.h"
#include "rapport/abi.h"
#include "support/TestEnv.h"

using namespace rapport::e2e;

namespace {

// Runs rapportd with `modules` enabled (and `environment`), asserts it refused
// to start with exactly one error line; returns that line. `output` receives
// the whole log.
std::string refusedLine(const std::string& modules, const ServerProcess::Environment& environment,
                        std::string& output) {
  ServerProcess::Settings settings{{"modules.dir", testModulesDir()}, {"modules.enabled", modules}};
  const int code = ServerProcess::runToCompletion(settings, {}, output, "", environment);
  const std::string context = "modules.enabled=" + modules + "\n" + output;
  CPPUNIT_ASSERT_MESSAGE("exit 0 for a refused start: " + context, code != 0);
  CPPUNIT_ASSERT_MESSAGE("killed by a signal (a crash?): " + context, code < 128);
  CPPUNIT_ASSERT_MESSAGE("it listened anyway: " + context,
                         linesContaining(output, "msg=listening").empty());
  const auto errors = linesContaining(output, "level=error");
  CPPUNIT_ASSERT_EQUAL_MESSAGE("one error line: " + context, std::size_t(1), errors.size());
  CPPUNIT_ASSERT_MESSAGE(context, errors.front().find("msg=\"cannot start\"") != std::string::npos);
  return errors.front();
}

void assertHas(const std::string& line, const std::string& fragment) {
  CPPUNIT_ASSERT_MESSAGE("'" + fragment + "' missing from: " + line,
                         line.find(fragment) != std::string::npos);
}

// This build's stamp values with the given container mode, as the refusals
// write them: "5.0 (gcc 12, libstdc++ cxx11 abi 1, debug containers)".
std::string build(const char* mode) {
  return std::to_string(RAPPORT_SDK_ABI_MAJOR) + "." + std::to_string(RAPPORT_SDK_ABI_MINOR) +
         " (" RAPPORT_COMPILER_FAMILY " " + std::to_string(RAPPORT_COMPILER_MAJOR) +
         ", libstdc++ cxx11 abi 1, " + mode + " containers)";
}

}  // namespace

class StartupRefusalsTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(StartupRefusalsTest);
  CPPUNIT_TEST(testSetupThrows);
  CPPUNIT_TEST(testRefusedStampRunsNoModuleCode);
  CPPUNIT_TEST(testOtherSdkLibrary);
  CPPUNIT_TEST_SUITE_END();

 public:
  // probe is set up before setup_throws (its dependency); setup_throws
  // registers a route and throws. Start-up stops naming it; nothing starts.
  void testSetupThrows() {
    std::string output;
    const std::string line = refusedLine("probe,setup_throws", {}, output);
    assertHas(line, "error=\"module 'setup_throws' failed to set up: setup_throws cannot set up\"");
    CPPUNIT_ASSERT_MESSAGE(output, linesContaining(output, "probe started").empty());
    CPPUNIT_ASSERT_MESSAGE(output, linesContaining(output, "probe stopped").empty());
  }

  // traced is accepted and loaded: its static initialiser leaves a trace.
  // bad_abi and debug_build are refused by the stamp in their files: their
  // static initialisers would leave one too, and must not have run.
  void testRefusedStampRunsNoModuleCode() {
    for (const std::string refused : {"bad_abi", "debug_build"}) {
      const std::filesystem::path traces = rapport::test::tempDirectory("traces");
      std::string output;
      const std::string line =
          refusedLine("traced," + refused, {{"RAPPORT_TEST_TRACE_DIR", traces.string()}}, output);
      assertHas(line, "/rapport_" + refused + ".so: SDK ABI mismatch: expected " +
                          build("release") + ", actual ");
      CPPUNIT_ASSERT_MESSAGE(output, std::filesystem::exists(traces / "traced"));
      CPPUNIT_ASSERT_MESSAGE(output, !std::filesystem::exists(traces / refused));
    }
  }

  // LD_LIBRARY_PATH wins over rapportd's RUNPATH: the dynamic linker loads
  // the SDK built with debug containers (tests/fixtures/modules/debug_sdk)
  // instead of the one rapportd was built with. rapportd refuses it before
  // loading any module, naming the file it loaded and both builds.
  void testOtherSdkLibrary() {
    const std::string dir = RAPPORT_TEST_DEBUG_SDK_DIR;
    std::string output;
    const std::string line = refusedLine("probe", {{"LD_LIBRARY_PATH", dir}}, output);
    assertHas(line, "error=\"SDK library " + dir + "/librapport_sdk.so." +
                        std::to_string(RAPPORT_SDK_ABI_MAJOR) + ": SDK ABI mismatch: expected " +
                        build("release") + ", actual " + build("debug") + "\"");
    CPPUNIT_ASSERT_MESSAGE(output, linesContaining(output, "storage ready").empty());

    // The same run with the SDK rapportd was built with starts the module.
    ServerProcess server(
        ServerProcess::Settings{{"modules.dir", testModulesDir()}, {"modules.enabled", "probe"}});
    CPPUNIT_ASSERT(server.running());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(StartupRefusalsTest);
