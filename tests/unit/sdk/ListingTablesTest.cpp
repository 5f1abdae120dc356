// rapport/listing_tables.h: the names a declaration derives, its refusals,
// and the shape of the SQL it generates per engine. That the SQL builds the
// same schema as the hand-written migrations it replaced is unit.listing's
// (on both engines); that it serves the lists, unit.contacts' and unit.companies' and the e2e
// suites'.
#include <cppunit/extensions/HelperMacros.h>

#include <stdexcept>
#include <string>

#include "rapport/listing_tables.h"

using rapport::ListingTables;
using rapport::Migration;

namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

}  // namespace

class ListingTablesTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ListingTablesTest);
  CPPUNIT_TEST(testNamesDeriveFromTheRecordColumn);
  CPPUNIT_TEST(testMigrationCarriesIdAndReplaces);
  CPPUNIT_TEST(testSqliteUsesOneSlotAndTriggerPairs);
  CPPUNIT_TEST(testPostgresqlUsesRandomSlotsAndFunctions);
  CPPUNIT_TEST(testWithoutTagsOnlyTheCounts);
  CPPUNIT_TEST(testRefusesNamesThatAreNotPlainIdentifiers);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testNamesDeriveFromTheRecordColumn() {
    const ListingTables companies{.records = "crm_companies", .recordColumn = "crm_company_id"};
    CPPUNIT_ASSERT_EQUAL(std::string("crm_company_counts"), companies.countsTable());
    CPPUNIT_ASSERT_EQUAL(std::string("crm_company_tags"), companies.tagTable());
    CPPUNIT_ASSERT_EQUAL(std::string("crm_company_tag_counts"), companies.tagCountsTable());
  }

  void testMigrationCarriesIdAndReplaces() {
    const Migration m = rapport::listingTablesMigration(
        {.records = "contacts", .recordColumn = "contact_id"}, "0006_contact_listing",
        {"0001_contacts", "0004_contact_counts_slots"});
    CPPUNIT_ASSERT_EQUAL(std::string("0006_contact_listing"), m.id);
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, m.replaces.size());
    CPPUNIT_ASSERT_EQUAL(std::string("0004_contact_counts_slots"), m.replaces[1]);
    CPPUNIT_ASSERT(rapport::listingTablesMigration({.records = "deals", .recordColumn = "deal_id"},
                                                   "0005_deal_listing")
                       .replaces.empty());
  }

  void testSqliteUsesOneSlotAndTriggerPairs() {
    const std::string sql =
        rapport::listingTablesMigration({.records = "contacts", .recordColumn = "contact_id"}, "x")
            .sqlite;
    CPPUNIT_ASSERT(has(sql,
                       "CREATE TABLE contact_counts (\n  company_id TEXT NOT NULL,\n"
                       "  slot SMALLINT NOT NULL,\n  total BIGINT NOT NULL,\n"
                       "  PRIMARY KEY (company_id, slot)\n);"));
    CPPUNIT_ASSERT(has(sql, "CREATE TRIGGER contact_counts_insert AFTER INSERT ON contacts BEGIN"));
    CPPUNIT_ASSERT(has(sql, "CREATE TRIGGER contact_counts_delete AFTER DELETE ON contacts BEGIN"));
    CPPUNIT_ASSERT(has(sql, "PRIMARY KEY (contact_id, tag_lower)"));
    CPPUNIT_ASSERT(has(sql,
                       "CREATE INDEX contact_tags_ordered ON contact_tags "
                       "(company_id, tag_lower, created_at, contact_id);"));
    CPPUNIT_ASSERT(has(sql,
                       "CREATE TRIGGER contact_tag_counts_delete AFTER DELETE ON "
                       "contact_tags BEGIN"));
    CPPUNIT_ASSERT_EQUAL(std::size_t{4}, occurrences(sql, "CREATE TRIGGER"));
    CPPUNIT_ASSERT(!has(sql, "random()"));
    CPPUNIT_ASSERT(!has(sql, "{"));  // every placeholder filled
  }

  void testPostgresqlUsesRandomSlotsAndFunctions() {
    const std::string sql =
        rapport::listingTablesMigration({.records = "contacts", .recordColumn = "contact_id"}, "x")
            .postgresql;
    CPPUNIT_ASSERT_EQUAL(
        std::size_t{2},
        occurrences(sql, "chosen SMALLINT := floor(random() * " +
                             std::to_string(rapport::kPostgresqlCountSlots) + ");"));
    CPPUNIT_ASSERT(has(sql, "CREATE FUNCTION contact_counts_track() RETURNS trigger AS $$"));
    CPPUNIT_ASSERT(has(sql,
                       "CREATE TRIGGER contact_counts_track AFTER INSERT OR DELETE ON "
                       "contacts\n  FOR EACH ROW EXECUTE FUNCTION contact_counts_track();"));
    CPPUNIT_ASSERT(has(sql,
                       "CREATE TRIGGER contact_tag_counts_track AFTER INSERT OR DELETE ON "
                       "contact_tags\n  FOR EACH ROW EXECUTE FUNCTION "
                       "contact_tag_counts_track();"));
    CPPUNIT_ASSERT(!has(sql, "{"));
  }

  void testWithoutTagsOnlyTheCounts() {
    const Migration m = rapport::listingTablesMigration(
        {.records = "activities", .recordColumn = "activity_id", .tags = false},
        "0003_activity_listing");
    for (const std::string* sql : {&m.sqlite, &m.postgresql}) {
      CPPUNIT_ASSERT(has(*sql, "CREATE TABLE activity_counts ("));
      CPPUNIT_ASSERT(!has(*sql, "activity_tags"));
      CPPUNIT_ASSERT(!has(*sql, "tag_lower"));
    }
  }

  void testRefusesNamesThatAreNotPlainIdentifiers() {
    const auto refused = [](const ListingTables& tables, const std::string& message) {
      try {
        rapport::listingTablesMigration(tables, "x");
        CPPUNIT_FAIL("expected a refusal: " + message);
      } catch (const std::invalid_argument& e) {
        CPPUNIT_ASSERT_EQUAL(message, std::string(e.what()));
      }
    };
    refused({.records = "contacts; DROP TABLE x", .recordColumn = "contact_id"},
            "listing tables: records \"contacts; DROP TABLE x\" is not a lower-case SQL "
            "identifier");
    refused({.records = "Contacts", .recordColumn = "contact_id"},
            "listing tables: records \"Contacts\" is not a lower-case SQL identifier");
    refused({.records = "contacts", .recordColumn = "contact"},
            "listing tables: recordColumn \"contact\" is not a lower-case SQL identifier ending "
            "in _id");
    refused({.records = "contacts", .recordColumn = "_id"},
            "listing tables: recordColumn \"_id\" is not a lower-case SQL identifier ending in "
            "_id");
    refused({.records = "", .recordColumn = "contact_id"},
            "listing tables: records \"\" is not a lower-case SQL identifier");
    CPPUNIT_ASSERT_THROW(
        ListingTables({.records = "contacts", .recordColumn = "9x_id"}).countsTable(),
        std::invalid_argument);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ListingTablesTest);
