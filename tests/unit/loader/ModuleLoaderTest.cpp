// The loader against real module files: the fixtures of tests/fixtures/modules.
#include <cppunit/extensions/HelperMacros.h>

#include <dlfcn.h>

#include <cstdlib>
#include <fstream>

#include "loader/ModuleLoader.h"
#include "loader/StampCheck.h"
#include "rapport/abi.h"
#include "support/TestEnv.h"
#include "unit/loader/ElfBytes.h"

using rapport::host::LoadedModule;
using rapport::host::ModuleLoader;
using rapport::host::ModuleLoadError;

namespace {

const std::string kDir = RAPPORT_TEST_MODULES_DIR;
const std::string kCopyDir = RAPPORT_TEST_MODULES_COPY_DIR;

std::vector<LoadedModule> load(const std::vector<std::string>& enabled,
                               std::vector<std::filesystem::path> dirs = {kDir}) {
  return ModuleLoader(std::move(dirs)).load(enabled);
}

// The refusal's text, or "(loaded)".
std::string refusal(const std::vector<std::string>& enabled,
                    std::vector<std::filesystem::path> dirs = {kDir}) {
  try {
    load(enabled, std::move(dirs));
  } catch (const ModuleLoadError& e) {
    return e.what();
  }
  return "(loaded)";
}

std::string names(const std::vector<LoadedModule>& modules) {
  std::string text;
  for (const LoadedModule& m : modules) text += (text.empty() ? "" : " ") + m.name;
  return text;
}

// "5.0 (gcc 12, libstdc++ cxx11 abi 1, release containers)" with this build's
// values and the given version and container mode.
std::string abi(unsigned major, unsigned minor, bool debug = false) {
  rapport_module_stamp s = rapport::host::hostStamp();
  s.abi_major = major;
  s.abi_minor = minor;
  s.debug_containers = debug;
  return rapport::host::describeBuild(s);
}

}  // namespace

class ModuleLoaderTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ModuleLoaderTest);
  CPPUNIT_TEST(testLoadsProbe);
  CPPUNIT_TEST(testSymbolsStayLocal);
  CPPUNIT_TEST(testDependencyOrder);
  CPPUNIT_TEST(testSearchesEveryDirectory);
  CPPUNIT_TEST(testNotFound);
  CPPUNIT_TEST(testDuplicateInTwoDirectories);
  CPPUNIT_TEST(testDuplicateInEnabled);
  CPPUNIT_TEST(testInvalidName);
  CPPUNIT_TEST(testCannotLoad);
  CPPUNIT_TEST(testNotElf);
  CPPUNIT_TEST(testDamagedElf);
  CPPUNIT_TEST(testNotAModule);
  CPPUNIT_TEST(testBadAbi);
  CPPUNIT_TEST(testDebugContainersAreRefused);
  CPPUNIT_TEST(testRefusedStampRunsNoModuleCode);
  CPPUNIT_TEST(testWrongName);
  CPPUNIT_TEST(testInfoNamesAnotherModule);
  CPPUNIT_TEST(testFactoryThrows);
  CPPUNIT_TEST(testMissingDependency);
  CPPUNIT_TEST(testWithDependencies);
  CPPUNIT_TEST(testCycle);
  CPPUNIT_TEST(testRefusalReleasesModulesAlreadyOpened);
  CPPUNIT_TEST(testLoadingTwiceGivesIndependentModules);
  CPPUNIT_TEST(testMoveAndDestroy);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testLoadsProbe() {
    auto modules = load({"probe"});
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), modules.size());
    const LoadedModule& probe = modules.front();
    CPPUNIT_ASSERT(probe.library.is_loaded());
    CPPUNIT_ASSERT(probe.module != nullptr);
    CPPUNIT_ASSERT_EQUAL(kDir + "/rapport_probe.so", probe.file);
    CPPUNIT_ASSERT_EQUAL(std::string("probe"), probe.name);
    CPPUNIT_ASSERT_EQUAL(std::string("1.0.0"), probe.version);
    CPPUNIT_ASSERT_EQUAL(std::string("probe"), probe.info.name);
    CPPUNIT_ASSERT_EQUAL(std::string("1.0.0"), probe.info.version);
    CPPUNIT_ASSERT(probe.info.dependencies.empty());
    CPPUNIT_ASSERT_EQUAL(std::string("probe"), probe.module->info().name);
  }

  void testSymbolsStayLocal() {
    // RTLD_LOCAL: a module's exports never resolve symbols of the host or of other modules.
    auto modules = load({"probe", "probe_dependent"});
    CPPUNIT_ASSERT(::dlsym(RTLD_DEFAULT, RAPPORT_MODULE_STAMP_SYMBOL) == nullptr);
    CPPUNIT_ASSERT(::dlsym(RTLD_DEFAULT, RAPPORT_MODULE_CREATE_SYMBOL) == nullptr);
  }

  void testDependencyOrder() {
    auto modules = load({"probe_dependent", "probe"});
    CPPUNIT_ASSERT_EQUAL(std::string("probe probe_dependent"), names(modules));
    CPPUNIT_ASSERT(modules[1].info.dependencies == std::vector<std::string>{"probe"});
    CPPUNIT_ASSERT_EQUAL(std::string("probe probe_dependent"),
                         names(load({"probe", "probe_dependent"})));
  }

  void testSearchesEveryDirectory() {
    const std::string empty = rapport::test::tempDirectory("loader");
    auto modules = load({"probe", "probe_dependent"}, {empty, "/nonexistent/rapport", kDir});
    CPPUNIT_ASSERT_EQUAL(std::string("probe probe_dependent"), names(modules));
  }

  void testNotFound() {
    CPPUNIT_ASSERT_EQUAL(
        "module 'nope' not found: no rapport_nope.so in " + kDir + ", /nonexistent/rapport",
        refusal({"probe", "nope"}, {kDir, "/nonexistent/rapport"}));
    CPPUNIT_ASSERT_EQUAL(std::string("module 'probe' not found: no rapport_probe.so in "
                                     "(no modules.dir)"),
                         refusal({"probe"}, {}));
  }

  void testDuplicateInTwoDirectories() {
    CPPUNIT_ASSERT_EQUAL("duplicate module 'probe': " + kDir + "/rapport_probe.so and " + kCopyDir +
                             "/rapport_probe.so",
                         refusal({"probe"}, {kDir, kCopyDir}));
    // The same folder listed twice is one file, not a duplicate.
    CPPUNIT_ASSERT_EQUAL(std::string("probe"), names(load({"probe"}, {kDir, kDir})));
  }

  void testDuplicateInEnabled() {
    CPPUNIT_ASSERT_EQUAL(std::string("duplicate module 'probe' in modules.enabled"),
                         refusal({"probe", "probe_dependent", "probe"}));
  }

  void testInvalidName() {
    CPPUNIT_ASSERT_EQUAL(std::string("invalid module name '../probe' in modules.enabled "
                                     "(lowercase letters, digits and '_' only)"),
                         refusal({"../probe"}));
  }

  // A stamp the host accepts, in a file the dynamic linker refuses (built for
  // another machine): the linker's own reason is reported.
  void testCannotLoad() {
    const std::filesystem::path dir = rapport::test::tempDirectory("loader");
    rapport::test::ElfBytes elf = rapport::test::ElfBytes::read(kDir + "/rapport_probe.so");
    elf.header()->e_machine = elf.header()->e_machine == EM_AARCH64 ? EM_X86_64 : EM_AARCH64;
    elf.write(dir / "rapport_probe.so");
    const std::string prefix =
        "module file " + (dir / "rapport_probe.so").string() + ": cannot load: ";
    const std::string text = refusal({"probe"}, {dir});
    CPPUNIT_ASSERT_MESSAGE(text, text.rfind(prefix, 0) == 0);
    CPPUNIT_ASSERT_MESSAGE(text, text.size() > prefix.size());  // the dynamic linker's reason
    CPPUNIT_ASSERT_MESSAGE(text, text.find('\n') == std::string::npos);
  }

  void testNotElf() {
    const std::filesystem::path dir = rapport::test::tempDirectory("loader");
    const std::filesystem::path file = dir / "rapport_garbage.so";
    std::ofstream(file) << "not an ELF file\n";
    CPPUNIT_ASSERT_EQUAL(
        "module file " + file.string() + ": not a Rapport module (not an ELF shared object)",
        refusal({"garbage"}, {dir}));
    // A 32-bit object is not one this host can load either.
    rapport::test::ElfBytes elf = rapport::test::ElfBytes::read(kDir + "/rapport_probe.so");
    elf.header()->e_ident[EI_CLASS] = ELFCLASS32;
    elf.write(dir / "rapport_probe.so");
    CPPUNIT_ASSERT_EQUAL("module file " + (dir / "rapport_probe.so").string() +
                             ": not a Rapport module (not an ELF shared object)",
                         refusal({"probe"}, {dir}));
  }

  void testDamagedElf() {
    const std::filesystem::path dir = rapport::test::tempDirectory("loader");
    rapport::test::ElfBytes elf = rapport::test::ElfBytes::read(kDir + "/rapport_probe.so");
    elf.bytes.resize(elf.bytes.size() / 2);
    elf.write(dir / "rapport_probe.so");
    CPPUNIT_ASSERT_EQUAL("module file " + (dir / "rapport_probe.so").string() +
                             ": not a Rapport module (damaged ELF file: section headers out of "
                             "bounds)",
                         refusal({"probe"}, {dir}));
  }

  void testNotAModule() {
    CPPUNIT_ASSERT_EQUAL("module file " + kDir +
                             "/rapport_not_a_module.so: not a Rapport module "
                             "(no stamp section)",
                         refusal({"not_a_module"}));
  }

  void testBadAbi() {
    // The factory of bad_abi aborts: reaching it would end this test run.
    CPPUNIT_ASSERT_EQUAL(
        "module file " + kDir + "/rapport_bad_abi.so: SDK ABI mismatch: expected " +
            abi(RAPPORT_SDK_ABI_MAJOR, RAPPORT_SDK_ABI_MINOR) + ", actual " + abi(99, 0),
        refusal({"bad_abi"}));
  }

  // debug_build is an ordinary module compiled with _GLIBCXX_DEBUG:
  // RAPPORT_MODULE recorded it.
  void testDebugContainersAreRefused() {
    CPPUNIT_ASSERT_EQUAL("module file " + kDir + "/rapport_debug_build.so: SDK ABI mismatch: " +
                             "expected " + abi(RAPPORT_SDK_ABI_MAJOR, RAPPORT_SDK_ABI_MINOR) +
                             ", actual " + abi(RAPPORT_SDK_ABI_MAJOR, RAPPORT_SDK_ABI_MINOR, true),
                         refusal({"debug_build"}));
  }

  // The stamp is read from the file: a refused module's static initialisers
  // never run (they would leave a trace file), an accepted one's do.
  void testRefusedStampRunsNoModuleCode() {
    const std::filesystem::path traces = rapport::test::tempDirectory("traces");
    ::setenv("RAPPORT_TEST_TRACE_DIR", traces.c_str(), 1);
    const std::string badAbi = refusal({"bad_abi"});
    const std::string debugBuild = refusal({"debug_build"});
    auto traced = load({"traced"});
    ::unsetenv("RAPPORT_TEST_TRACE_DIR");
    CPPUNIT_ASSERT_MESSAGE(badAbi, badAbi.find("SDK ABI mismatch") != std::string::npos);
    CPPUNIT_ASSERT_MESSAGE(debugBuild, debugBuild.find("SDK ABI mismatch") != std::string::npos);
    CPPUNIT_ASSERT(!std::filesystem::exists(traces / "bad_abi"));
    CPPUNIT_ASSERT(!std::filesystem::exists(traces / "debug_build"));
    CPPUNIT_ASSERT(std::filesystem::exists(traces / "traced"));  // the trace works
    CPPUNIT_ASSERT_EQUAL(std::string("traced"), names(traced));
  }

  void testWrongName() {
    CPPUNIT_ASSERT_EQUAL("module file " + kDir +
                             "/rapport_wrong_name.so: declares module 'probe', expected "
                             "'wrong_name'",
                         refusal({"wrong_name"}));
  }

  void testInfoNamesAnotherModule() {
    CPPUNIT_ASSERT_EQUAL("module file " + kDir +
                             "/rapport_info_mismatch.so: info() names 'something_else' but "
                             "the stamp says 'info_mismatch'",
                         refusal({"info_mismatch"}));
  }

  void testFactoryThrows() {
    CPPUNIT_ASSERT_EQUAL("module file " + kDir +
                             "/rapport_create_throws.so: rapport_module_create failed: no "
                             "configuration for create_throws",
                         refusal({"create_throws"}));
  }

  void testMissingDependency() {
    CPPUNIT_ASSERT_EQUAL(
        std::string("module 'needs_missing' requires module 'nonexistent', which is not enabled"),
        refusal({"probe", "needs_missing"}));
    CPPUNIT_ASSERT_EQUAL(
        std::string("module 'probe_dependent' requires module 'probe', which is not enabled"),
        refusal({"probe_dependent"}));
  }

  // What the test harness enables for "the module under test": the named
  // modules, then their dependencies (never the optional ones).
  void testWithDependencies() {
    const ModuleLoader loader({kDir});
    CPPUNIT_ASSERT(loader.withDependencies({"probe_dependent"}) ==
                   std::vector<std::string>({"probe_dependent", "probe"}));
    CPPUNIT_ASSERT(loader.withDependencies({"probe", "probe_dependent"}) ==
                   std::vector<std::string>({"probe", "probe_dependent"}));
    CPPUNIT_ASSERT(loader.withDependencies({}).empty());
    try {
      loader.withDependencies({"needs_missing"});
      CPPUNIT_FAIL("a dependency found in no folder must be refused");
    } catch (const rapport::host::ModuleLoadError& e) {
      CPPUNIT_ASSERT_EQUAL(
          std::string("module 'nonexistent' not found: no rapport_nonexistent.so in ") + kDir,
          std::string(e.what()));
    }
    try {
      loader.withDependencies({"Probe"});
      CPPUNIT_FAIL("an invalid name must be refused");
    } catch (const rapport::host::ModuleLoadError& e) {
      CPPUNIT_ASSERT(std::string(e.what()).find("invalid module name 'Probe'") == 0);
    }
  }

  void testCycle() {
    CPPUNIT_ASSERT_EQUAL(std::string("module dependency cycle: cycle_a -> cycle_b -> cycle_a"),
                         refusal({"cycle_a", "cycle_b"}));
    CPPUNIT_ASSERT_EQUAL(std::string("module dependency cycle: cycle_b -> cycle_a -> cycle_b"),
                         refusal({"probe", "cycle_b", "cycle_a"}));
  }

  void testRefusalReleasesModulesAlreadyOpened() {
    CPPUNIT_ASSERT(refusal({"probe", "probe_dependent", "bad_abi"}).find("SDK ABI mismatch") !=
                   std::string::npos);
    // Nothing was left behind: the same modules load again.
    CPPUNIT_ASSERT_EQUAL(std::string("probe probe_dependent"),
                         names(load({"probe", "probe_dependent"})));
  }

  void testLoadingTwiceGivesIndependentModules() {
    auto first = load({"probe_dependent", "probe"});
    auto second = load({"probe_dependent", "probe"});
    CPPUNIT_ASSERT_EQUAL(names(first), names(second));
    CPPUNIT_ASSERT(first[0].module.get() != second[0].module.get());
    first.clear();
    // The dynamic linker counts references: the second set still works.
    CPPUNIT_ASSERT_EQUAL(std::string("probe"), second[0].module->info().name);
    CPPUNIT_ASSERT_EQUAL(std::string("probe_dependent"), second[1].module->info().name);
  }

  void testMoveAndDestroy() {
    auto modules = load({"probe", "probe_dependent"});
    LoadedModule probe = std::move(modules[0]);
    CPPUNIT_ASSERT(!modules[0].module);
    CPPUNIT_ASSERT(!modules[0].library.is_loaded());
    CPPUNIT_ASSERT_EQUAL(std::string("probe"), probe.module->info().name);

    // Move assignment releases the old module before the old library.
    probe = std::move(modules[1]);
    CPPUNIT_ASSERT_EQUAL(std::string("probe_dependent"), probe.name);
    CPPUNIT_ASSERT_EQUAL(std::string("probe_dependent"), probe.module->info().name);

    // Tearing down in reverse order, as the app does.
    while (!modules.empty()) modules.pop_back();
    LoadedModule empty;
    probe = std::move(empty);
    CPPUNIT_ASSERT(!probe.module);
    CPPUNIT_ASSERT(!probe.library.is_loaded());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ModuleLoaderTest);
