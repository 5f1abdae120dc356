#include <cppunit/extensions/HelperMacros.h>

#include "loader/DependencyOrder.h"
#include "loader/ModuleLoadError.h"

using rapport::host::dependencyOrder;
using rapport::host::ModuleLoadError;

namespace {

rapport::ModuleInfo mod(std::string name, std::vector<std::string> dependencies = {},
                        std::vector<std::string> optional = {}) {
  return {.name = std::move(name),
          .version = "1.0.0",
          .description = "",
          .dependencies = std::move(dependencies),
          .optional = std::move(optional)};
}

// Names in set-up order, or the refusal.
std::string order(const std::vector<rapport::ModuleInfo>& modules) {
  try {
    std::string names;
    for (std::size_t i : dependencyOrder(modules))
      names += (names.empty() ? "" : " ") + modules[i].name;
    return names;
  } catch (const ModuleLoadError& e) {
    return e.what();
  }
}

}  // namespace

class DependencyOrderTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(DependencyOrderTest);
  CPPUNIT_TEST(testIndependentModulesKeepEnabledOrder);
  CPPUNIT_TEST(testDependenciesComeFirst);
  CPPUNIT_TEST(testDepthFirst);
  CPPUNIT_TEST(testOptionalOnlyWhenEnabled);
  CPPUNIT_TEST(testMissingDependency);
  CPPUNIT_TEST(testCycles);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testIndependentModulesKeepEnabledOrder() {
    CPPUNIT_ASSERT_EQUAL(std::string("contacts companies webhooks"),
                         order({mod("contacts"), mod("companies"), mod("webhooks")}));
    CPPUNIT_ASSERT_EQUAL(std::string(""), order({}));
  }

  void testDependenciesComeFirst() {
    CPPUNIT_ASSERT_EQUAL(
        std::string("contacts pipelines deals activities"),
        order({mod("contacts"), mod("deals", {"pipelines"}), mod("pipelines"), mod("activities")}));
  }

  void testDepthFirst() {
    CPPUNIT_ASSERT_EQUAL(std::string("c b a d"),
                         order({mod("a", {"b"}), mod("b", {"c"}), mod("c"), mod("d", {"a"})}));
  }

  void testOptionalOnlyWhenEnabled() {
    CPPUNIT_ASSERT_EQUAL(std::string("contacts deals"),
                         order({mod("deals", {}, {"contacts"}), mod("contacts")}));
    CPPUNIT_ASSERT_EQUAL(std::string("deals"), order({mod("deals", {}, {"contacts"})}));
  }

  void testMissingDependency() {
    CPPUNIT_ASSERT_EQUAL(
        std::string("module 'deals' requires module 'pipelines', which is not enabled"),
        order({mod("contacts"), mod("deals", {"pipelines"})}));
  }

  void testCycles() {
    CPPUNIT_ASSERT_EQUAL(std::string("module dependency cycle: a -> b -> a"),
                         order({mod("a", {"b"}), mod("b", {"a"})}));
    CPPUNIT_ASSERT_EQUAL(
        std::string("module dependency cycle: a -> b -> c -> a"),
        order({mod("x", {"a"}), mod("a", {"b"}), mod("b", {"c"}), mod("c", {"a"})}));
    CPPUNIT_ASSERT_EQUAL(std::string("module dependency cycle: a -> a"), order({mod("a", {"a"})}));
    // An optional link to an enabled module orders like a dependency, cycles included.
    CPPUNIT_ASSERT_EQUAL(std::string("module dependency cycle: a -> b -> a"),
                         order({mod("a", {}, {"b"}), mod("b", {"a"})}));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(DependencyOrderTest);
