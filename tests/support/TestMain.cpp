// CppUnit driver shared by every test executable: runs all suites registered
// with CPPUNIT_TEST_SUITE_REGISTRATION, or only the named ones
// (`test_x SuiteName ...`), and exits non-zero on any failure.
#include <cppunit/BriefTestProgressListener.h>
#include <cppunit/CompilerOutputter.h>
#include <cppunit/TestResult.h>
#include <cppunit/TestResultCollector.h>
#include <cppunit/TestRunner.h>
#include <cppunit/extensions/TestFactoryRegistry.h>

#include <cstdlib>
#include <iostream>

#include "support/TestEnv.h"

int main(int argc, char** argv) {
  // The in-process harness (rapport/testing.h) creates its databases on
  // RAPPORT_TEST_DATABASE_URL: on the postgresql engine, the test server.
  if (rapport::test::onPostgres() && !std::getenv("RAPPORT_TEST_DATABASE_URL")) {
    setenv("RAPPORT_TEST_DATABASE_URL", rapport::test::postgresAdminUrl().c_str(), 0);
  }
  CppUnit::TestResult controller;
  CppUnit::TestResultCollector result;
  controller.addListener(&result);
  CppUnit::BriefTestProgressListener progress;
  controller.addListener(&progress);

  CppUnit::TestRunner runner;
  CppUnit::Test* all = CppUnit::TestFactoryRegistry::getRegistry().makeTest();
  if (argc > 1) {
    for (int i = 1; i < argc; ++i) runner.addTest(all->findTest(argv[i]));
  } else {
    runner.addTest(all);
  }
  runner.run(controller);

  CppUnit::CompilerOutputter outputter(&result, std::cerr);
  outputter.write();
  rapport::test::dropFreshDatabases();
  return result.wasSuccessful() ? 0 : 1;
}
