#include <cppunit/extensions/HelperMacros.h>

#include "loader/ModuleLists.h"

using rapport::host::splitList;
using rapport::host::splitModuleDirs;

class ModuleListsTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ModuleListsTest);
  CPPUNIT_TEST(testDirsSplitOnColonsAndCommas);
  CPPUNIT_TEST(testListTrimsAndDropsEmpties);
  CPPUNIT_TEST(testEmptyValues);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testDirsSplitOnColonsAndCommas() {
    const auto dirs = splitModuleDirs(" build/modules : /opt/rapport/modules,extra ");
    CPPUNIT_ASSERT_EQUAL(std::size_t(3), dirs.size());
    CPPUNIT_ASSERT_EQUAL(std::string("build/modules"), dirs[0].string());
    CPPUNIT_ASSERT_EQUAL(std::string("/opt/rapport/modules"), dirs[1].string());
    CPPUNIT_ASSERT_EQUAL(std::string("extra"), dirs[2].string());
  }

  void testListTrimsAndDropsEmpties() {
    const std::vector<std::string> expected{"contacts", "deals", "pipelines"};
    CPPUNIT_ASSERT(splitList(" contacts,, deals ,\tpipelines,") == expected);
    // ':' is not a separator of modules.enabled
    CPPUNIT_ASSERT(splitList("a:b") == std::vector<std::string>{"a:b"});
  }

  void testEmptyValues() {
    CPPUNIT_ASSERT(splitList("").empty());
    CPPUNIT_ASSERT(splitList(" , ,").empty());
    CPPUNIT_ASSERT(splitModuleDirs(":,: ").empty());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ModuleListsTest);
