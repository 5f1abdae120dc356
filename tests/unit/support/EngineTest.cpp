// RAPPORT_TEST_ENGINE (tests/support/TestEnv.h): sqlite when unset, the two
// engine names as they are, anything else refused by name; and a test
// executable started with a misspelt engine fails before any test runs,
// saying why (tests/support/TestMain.cpp).
#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>
#include <cppunit/extensions/HelperMacros.h>

#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string>

#include "support/TestEnv.h"

using rapport::test::engineNamed;

class EngineNameTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(EngineNameTest);
  CPPUNIT_TEST(testUnsetIsSqlite);
  CPPUNIT_TEST(testKnownNames);
  CPPUNIT_TEST(testUnknownNamesAreRefusedByName);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testUnsetIsSqlite() {
    CPPUNIT_ASSERT_EQUAL(std::string("sqlite"), engineNamed(nullptr));
    CPPUNIT_ASSERT_EQUAL(std::string("sqlite"), engineNamed(""));
  }

  void testKnownNames() {
    CPPUNIT_ASSERT_EQUAL(std::string("sqlite"), engineNamed("sqlite"));
    CPPUNIT_ASSERT_EQUAL(std::string("postgresql"), engineNamed("postgresql"));
  }

  void testUnknownNamesAreRefusedByName() {
    for (const char* wrong :
         {"postgres", "PostgreSQL", "sqlite3", "pg", " sqlite", "postgresql "}) {
      try {
        engineNamed(wrong);
        CPPUNIT_FAIL(std::string("accepted the engine '") + wrong + "'");
      } catch (const std::invalid_argument& e) {
        CPPUNIT_ASSERT_EQUAL(std::string("RAPPORT_TEST_ENGINE is '") + wrong +
                                 "': the engines are sqlite and postgresql (unset: sqlite)",
                             std::string(e.what()));
      }
    }
  }
};

class UnknownEngineRunTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(UnknownEngineRunTest);
  CPPUNIT_TEST(testMisspeltEngineFailsTheRun);
  CPPUNIT_TEST_SUITE_END();

 public:
  // This executable again, asked to run EngineNameTest (which passes on any
  // engine) with RAPPORT_TEST_ENGINE=postgress: it must exit with status 2
  // and the message, having run nothing (not abort on an uncaught exception).
  void testMisspeltEngineFailsTheRun() {
    const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
    Poco::Pipe output;
    Poco::ProcessHandle child =
        Poco::Process::launch(self, {"EngineNameTest"}, ".", nullptr, &output, &output,
                              Poco::Process::Env{{"RAPPORT_TEST_ENGINE", "postgress"}});
    Poco::PipeInputStream in(output);
    std::stringstream text;
    text << in.rdbuf();
    const int code = child.wait();
    CPPUNIT_ASSERT_EQUAL_MESSAGE(text.str(), 2, code);
    CPPUNIT_ASSERT_EQUAL(self +
                             ": RAPPORT_TEST_ENGINE is 'postgress': the engines are sqlite and "
                             "postgresql (unset: sqlite)\n",
                         text.str());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(EngineNameTest);
CPPUNIT_TEST_SUITE_REGISTRATION(UnknownEngineRunTest);
