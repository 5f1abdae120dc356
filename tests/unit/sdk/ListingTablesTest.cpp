// rapport/listing_tables.h: the names a declaration derives, its refusals,
// and the shape of the SQL it generates per engine. That the SQL builds the
// same schema as the hand-written migrations it replaced is unit.listing's
// (on both engines); that it serves the lists, unit.contacts' and unit.companies' and the e2e
// suites'.
#include <cppunit/extensions/HelperMacros.h>

#include <stdexcept>
#include <string>

#include "rapport/ids.h"
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
  CPPUNIT_TEST(testListingTablesTextNeverChanges);
  CPPUNIT_TEST(testCountSlotsReplaceOnlyThePostgresqlFunctions);
  CPPUNIT_TEST(testCountSlotsWithoutTagsAndRefusals);
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

  // An applied migration is checksummed (the ledger): the text
  // listingTablesMigration generates is pinned, as SDK 10.0 generated it.
  // The count slots changed in 10.1 by a migration of their own
  // (listingCountSlotsMigration), not here.
  void testListingTablesTextNeverChanges() {
    const Migration tagged =
        rapport::listingTablesMigration({.records = "contacts", .recordColumn = "contact_id"}, "x");
    const Migration untagged = rapport::listingTablesMigration(
        {.records = "pipelines", .recordColumn = "pipeline_id", .tags = false}, "x");
    CPPUNIT_ASSERT_EQUAL(std::string(kContactsSqlite), rapport::sha256Hex(tagged.sqlite));
    CPPUNIT_ASSERT_EQUAL(std::string(kContactsPostgresql), rapport::sha256Hex(tagged.postgresql));
    CPPUNIT_ASSERT_EQUAL(std::string(kPipelinesSqlite), rapport::sha256Hex(untagged.sqlite));
    CPPUNIT_ASSERT_EQUAL(std::string(kPipelinesPostgresql),
                         rapport::sha256Hex(untagged.postgresql));
  }

  void testCountSlotsReplaceOnlyThePostgresqlFunctions() {
    const Migration m = rapport::listingCountSlotsMigration(
        {.records = "contacts", .recordColumn = "contact_id"}, "0007_contacts_count_slots");
    CPPUNIT_ASSERT_EQUAL(std::string("0007_contacts_count_slots"), m.id);
    CPPUNIT_ASSERT(m.replaces.empty());
    // SQLite: comments only (no statement to run; the ledger records it).
    std::size_t lines = 0;
    for (std::size_t at = 0; at < m.sqlite.size(); at = m.sqlite.find('\n', at) + 1, ++lines) {
      CPPUNIT_ASSERT_MESSAGE(m.sqlite, m.sqlite.compare(at, 3, "-- ") == 0);
    }
    CPPUNIT_ASSERT(lines >= 1);
    CPPUNIT_ASSERT(m.sqlite.ends_with("\n"));
    // PostgreSQL: the two functions replaced, nothing else.
    const std::string& sql = m.postgresql;
    CPPUNIT_ASSERT(
        has(sql, "CREATE OR REPLACE FUNCTION contact_counts_track() RETURNS trigger AS $$"));
    CPPUNIT_ASSERT(has(sql,
                       "CREATE OR REPLACE FUNCTION contact_tag_counts_track() RETURNS trigger AS "
                       "$$"));
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, occurrences(sql, "CREATE OR REPLACE FUNCTION"));
    CPPUNIT_ASSERT(has(sql,
                       "SELECT slot INTO chosen FROM contact_counts\n"
                       "    WHERE company_id = row_company LIMIT 1 FOR UPDATE SKIP LOCKED;"));
    CPPUNIT_ASSERT(has(sql,
                       "SELECT slot INTO chosen FROM contact_tag_counts\n"
                       "    WHERE company_id = row_company AND tag_lower = row_tag LIMIT 1 FOR "
                       "UPDATE SKIP LOCKED;"));
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, occurrences(sql, "chosen := pg_backend_pid() % 32768;"));
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, occurrences(sql, "chosen := floor(random() * 32768);"));
    CPPUNIT_ASSERT(!has(sql, "CREATE TABLE"));
    CPPUNIT_ASSERT(!has(sql, "CREATE TRIGGER"));
    CPPUNIT_ASSERT(!has(sql, "CREATE INDEX"));
    CPPUNIT_ASSERT(!has(sql, "{"));
  }

  void testCountSlotsWithoutTagsAndRefusals() {
    const Migration m = rapport::listingCountSlotsMigration(
        {.records = "pipelines", .recordColumn = "pipeline_id", .tags = false}, "y");
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, occurrences(m.postgresql, "CREATE OR REPLACE FUNCTION"));
    CPPUNIT_ASSERT(has(m.postgresql, "pipeline_counts_track()"));
    CPPUNIT_ASSERT(!has(m.postgresql, "tag"));
    CPPUNIT_ASSERT_THROW(rapport::listingCountSlotsMigration(
                             {.records = "Contacts", .recordColumn = "contact_id"}, "y"),
                         std::invalid_argument);
    CPPUNIT_ASSERT_THROW(rapport::listingCountSlotsMigration(
                             {.records = "contacts", .recordColumn = "contact"}, "y"),
                         std::invalid_argument);
  }

 private:
  // sha256Hex of listingTablesMigration's texts at SDK 10.0.
  static constexpr const char* kContactsSqlite =
      "aee5c6d644a8135a5c55a69f9218a1ce07eebb74ae11cb4d706b7b8f3318d1a1";
  static constexpr const char* kContactsPostgresql =
      "c8dc9e50a28a32b2027c62cb42e8815e976369e554f6368da9bde107a54a7c4f";
  static constexpr const char* kPipelinesSqlite =
      "55370104b8d9c2d65d51f861b248a400610275267f807ec26317d6624b8f50f2";
  static constexpr const char* kPipelinesPostgresql =
      "4f691090c035edef3046f7a6591e50a3b0bb481b1e213029306525ad95e46623";
};

CPPUNIT_TEST_SUITE_REGISTRATION(ListingTablesTest);
