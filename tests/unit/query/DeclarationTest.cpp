// RecordQuery's constructor checks the declaration a module hands it
// (rapport/record_query.h): a mistake is a programming error, thrown as
// std::invalid_argument naming it, at the module's start rather than on a
// client's request.
#include <cppunit/extensions/HelperMacros.h>

#include <stdexcept>
#include <string>

#include "QueryTestSupport.h"

using rapport::QueryKind;
using rapport::RecordQuery;
using rapport::RecordSchema;
using namespace rapport::test::query;

namespace {

// The message of the declaration mistake `change` makes, or "" when accepted.
std::string refusalOf(void (*change)(RecordSchema&)) {
  RecordSchema schema = dealsSchema();
  change(schema);
  try {
    RecordQuery query(std::move(schema));
    return "";
  } catch (const std::invalid_argument& error) {
    const std::string message = error.what();
    return message.empty() ? "(an empty message)" : message;
  }
}

}  // namespace

class DeclarationTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(DeclarationTest);
  CPPUNIT_TEST(testTheCrmDeclarationsPass);
  CPPUNIT_TEST(testEmptyTable);
  CPPUNIT_TEST(testDuplicateField);
  CPPUNIT_TEST(testEnumWithoutOptions);
  CPPUNIT_TEST(testReferenceOnAFieldThatIsNoId);
  CPPUNIT_TEST(testCopiesShareTheDeclaration);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testTheCrmDeclarationsPass() {
    CPPUNIT_ASSERT_EQUAL(std::string(""), refusalOf([](RecordSchema&) {}));
    RecordQuery contacts(contactsSchema());
    RecordQuery companies(companiesSchema());
    CPPUNIT_ASSERT_EQUAL(std::string("contacts"), contacts.schema().table);
    CPPUNIT_ASSERT_EQUAL(std::string("company"), companies.schema().recordType);
  }

  void testEmptyTable() {
    const std::string message = refusalOf([](RecordSchema& schema) { schema.table = ""; });
    CPPUNIT_ASSERT_MESSAGE("an empty table was accepted", !message.empty());
  }

  void testDuplicateField() {
    const std::string message = refusalOf([](RecordSchema& schema) {
      schema.fields.push_back({.name = "status", .column = "status2"});
    });
    CPPUNIT_ASSERT_MESSAGE("a duplicate field was accepted", !message.empty());
    CPPUNIT_ASSERT_MESSAGE(message, has(message, "status"));
  }

  void testEnumWithoutOptions() {
    const std::string message = refusalOf([](RecordSchema& schema) {
      schema.fields.push_back({.name = "stage", .column = "stage", .kind = QueryKind::Enum});
    });
    CPPUNIT_ASSERT_MESSAGE("an Enum without options was accepted", !message.empty());
    CPPUNIT_ASSERT_MESSAGE(message, has(message, "stage"));
  }

  void testReferenceOnAFieldThatIsNoId() {
    const std::string message = refusalOf([](RecordSchema& schema) {
      schema.fields.push_back({.name = "company_name",
                               .column = "company_name",
                               .kind = QueryKind::Text,
                               .reference = "company"});
    });
    CPPUNIT_ASSERT_MESSAGE("a reference on a Text field was accepted", !message.empty());
    CPPUNIT_ASSERT_MESSAGE(message, has(message, "company_name"));
  }

  void testCopiesShareTheDeclaration() {
    const RecordQuery original(dealsSchema());
    const RecordQuery copy = original;
    CPPUNIT_ASSERT_EQUAL(&original.schema(), &copy.schema());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(DeclarationTest);
