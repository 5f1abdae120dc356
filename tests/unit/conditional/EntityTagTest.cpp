// Entity tags (conditional/EntityTag.h): the record's tag, the If-Match and
// If-None-Match lists of RFC 9110 §8.8.3 and §13.1, and the two comparisons.
#include <cppunit/extensions/HelperMacros.h>

#include "conditional/EntityTag.h"

using rapport::Json;
using namespace rapport::host;

class EntityTagTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(EntityTagTest);
  CPPUNIT_TEST(testTagIsStrongQuotedAndFollowsTheData);
  CPPUNIT_TEST(testListsParse);
  CPPUNIT_TEST(testMalformedListsAreRefused);
  CPPUNIT_TEST(testStrongAndWeakComparison);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testTagIsStrongQuotedAndFollowsTheData() {
    const std::string tag = entityTagOf(Json::object({{"id", "cont_1"}, {"name", "Ada"}}));
    CPPUNIT_ASSERT_EQUAL(std::size_t(35), tag.size());
    CPPUNIT_ASSERT_EQUAL(std::string("\"r"), tag.substr(0, 2));
    CPPUNIT_ASSERT_EQUAL('"', tag.back());
    CPPUNIT_ASSERT_EQUAL(tag, entityTagOf(Json::object({{"id", "cont_1"}, {"name", "Ada"}})));
    CPPUNIT_ASSERT(tag != entityTagOf(Json::object({{"id", "cont_1"}, {"name", "Ada "}})));
    CPPUNIT_ASSERT(tag != entityTagOf(Json::object({{"id", "cont_1"}, {"name", nullptr}})));
  }

  void testListsParse() {
    const EntityTagList star = parseEntityTagList("  * ");
    CPPUNIT_ASSERT(star.valid && star.any);
    const EntityTagList list = parseEntityTagList("\"a\", W/\"b\" ,,\"c!#\"");
    CPPUNIT_ASSERT(list.valid && !list.any);
    CPPUNIT_ASSERT_EQUAL(std::size_t(3), list.tags.size());
    CPPUNIT_ASSERT_EQUAL(std::string("\"a\""), list.tags[0].opaque);
    CPPUNIT_ASSERT(!list.tags[0].weak);
    CPPUNIT_ASSERT_EQUAL(std::string("\"b\""), list.tags[1].opaque);
    CPPUNIT_ASSERT(list.tags[1].weak);
    CPPUNIT_ASSERT_EQUAL(std::string("\"c!#\""), list.tags[2].opaque);
  }

  void testMalformedListsAreRefused() {
    for (const char* bad : {"", " ", "abc", "\"open", "\"a\" \"b\"", "W/abc", "\"a\"x", "\"a b\"",
                            "*, \"a\"", "w/\"a\"", "\"a\x7f\""}) {
      CPPUNIT_ASSERT_MESSAGE(bad, !parseEntityTagList(bad).valid);
    }
  }

  void testStrongAndWeakComparison() {
    const std::string tag = "\"rabc\"";
    const EntityTagList weak = parseEntityTagList("W/\"rabc\"");
    CPPUNIT_ASSERT(!matchesStrongly(weak, tag));
    CPPUNIT_ASSERT(matchesWeakly(weak, tag));
    const EntityTagList strong = parseEntityTagList("\"x\", \"rabc\"");
    CPPUNIT_ASSERT(matchesStrongly(strong, tag));
    CPPUNIT_ASSERT(matchesWeakly(strong, tag));
    const EntityTagList other = parseEntityTagList("\"rabd\"");
    CPPUNIT_ASSERT(!matchesStrongly(other, tag) && !matchesWeakly(other, tag));
    const EntityTagList any = parseEntityTagList("*");
    CPPUNIT_ASSERT(matchesStrongly(any, tag) && matchesWeakly(any, tag));
    CPPUNIT_ASSERT(!matchesWeakly(EntityTagList{}, tag));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(EntityTagTest);
