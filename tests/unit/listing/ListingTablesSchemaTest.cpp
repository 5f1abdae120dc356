// The SDK's listing tables (rapport/listing_tables.h) are exactly what the
// first-party modules wrote by hand before, and a database migrated by hand
// upgrades to them: for each listing module, a database migrated with its
// old hand-written migrations (copies kept in old_migrations/, the files the
// module shipped before the squash) then started with the module's current
// migrations has every old migration's effect kept, the squashes recorded
// without running, its rows and counts intact, and the same schema as a
// fresh database built from the current migrations. On both engines.
#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "ActivitiesResource.h"
#include "CompaniesResource.h"
#include "ContactsResource.h"
#include "DealsTables.h"
#include "PipelinesTables.h"
#include "SchemaSnapshot.h"
#include "host_migrations.gen.h"
#include "rapport/resource.h"
#include "storage/Migrator.h"
#include "storage/SqlDatabase.h"
#include "support/TestEnv.h"

namespace fs = std::filesystem;
using rapport::Migration;
using rapport::host::AppliedMigration;
using rapport::host::Migrator;
using rapport::host::SqlDatabase;
using rapport::test::listing::joined;
using rapport::test::listing::schemaOf;

namespace {

// With the host's migrations, as rapportd applies them before any module's:
// the search triggers of SQLite write to the host's search_queue (0017).
std::unique_ptr<SqlDatabase> freshDatabase() {
  rapport::host::StorageOptions options;
  options.url = rapport::test::freshDatabaseUrl("listing");
  options.poolSize = 2;
  auto db = SqlDatabase::open(options);
  Migrator(*db).apply({{"host", rapport_generated::host::migrations()}});
  return db;
}

std::string readFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The ids of a migration file's first line "-- replaces: a b" (as
// rapport_add_module reads it).
std::vector<std::string> replacesOf(const std::string& sql) {
  const std::string prefix = "-- replaces:";
  if (!sql.starts_with(prefix)) return {};
  std::istringstream ids(sql.substr(prefix.size(), sql.find('\n') - prefix.size()));
  std::vector<std::string> out;
  for (std::string id; ids >> id;) out.push_back(id);
  return out;
}

// A module's migrations as it shipped them before the squash.
std::vector<Migration> oldMigrations(const std::string& module) {
  const fs::path root =
      fs::path(rapport::test::sourceDir()) / "tests/unit/listing/old_migrations" / module;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(root / "sqlite")) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<Migration> out;
  for (const fs::path& file : files) {
    const std::string sqlite = readFile(file);
    out.emplace_back(file.stem().string(), sqlite, readFile(root / "postgresql" / file.filename()),
                     replacesOf(sqlite));
  }
  return out;
}

std::string flags(const std::vector<AppliedMigration>& applied) {
  std::string out;
  for (const auto& m : applied) out += m.id + (m.ran ? ":ran " : ":recorded ");
  return out;
}

// SQLite cannot drop a column's DEFAULT: the old 0003 of contacts and
// companies added <record>_tags.created_at with ALTER TABLE ... DEFAULT 0,
// which stays on an upgraded SQLite database. Never used (replaceTagRows
// always writes created_at); the only difference allowed, and asserted to be
// there so this exception cannot hide another.
std::vector<std::string> withoutSqliteAddColumnDefault(std::vector<std::string> schema,
                                                       const std::string& tagTable) {
  if (rapport::test::onPostgres() || tagTable.empty()) return schema;
  const std::string left = "column " + tagTable + ".created_at BIGINT NOT NULL default 0 pk 0";
  const auto found = std::find_if(schema.begin(), schema.end(),
                                  [&](const std::string& line) { return line.starts_with(left); });
  CPPUNIT_ASSERT_MESSAGE(joined(schema), found != schema.end());
  found->replace(0, left.size(),
                 "column " + tagTable + ".created_at BIGINT NOT NULL default NULL pk 0");
  std::sort(schema.begin(), schema.end());
  return schema;
}

struct ListingModule {
  std::string name;
  std::vector<Migration> current;
  // A release between the old migrations and the current ones, when the
  // module changed its history twice (companies: the hand-written squash of
  // SDK 7, then the record engine's migration of SDK 8).
  std::vector<Migration> between;
  std::string expectedFlags;   // of the current migrations applied over the old ones
  std::string addColumnTable;  // the tag table the old SQLite migrations altered, if any
};

// The companies module's migrations as SDK 7 shipped them: the hand-written
// table (0005, 0007; copies in old_migrations/companies_v7) and the listing
// tables (0006), which the record engine's 0008_crm_companies stands for.
std::vector<Migration> companiesSdk7() {
  std::vector<Migration> out = oldMigrations("companies_v7");
  out.push_back(rapport::listingTablesMigration(
      {.records = "crm_companies", .recordColumn = "crm_company_id"}, "0006_crm_company_listing",
      {"0001_companies", "0002_crm_company_counts", "0003_crm_company_tags_order",
       "0004_crm_company_counts_slots"}));
  return out;
}

// The same for contacts: 0005 by hand, 0006 the listing tables.
std::vector<Migration> contactsSdk7() {
  std::vector<Migration> out = oldMigrations("contacts_v7");
  out.push_back(rapport::listingTablesMigration(
      {.records = "contacts", .recordColumn = "contact_id"}, "0006_contact_listing",
      {"0001_contacts", "0002_contact_counts", "0003_contact_tags_order",
       "0004_contact_counts_slots"}));
  return out;
}

// The same for activities: 0002 by hand, 0003 the count table.
std::vector<Migration> activitiesSdk7() {
  std::vector<Migration> out = oldMigrations("activities_v7");
  out.push_back(rapport::listingTablesMigration(
      {.records = "activities", .recordColumn = "activity_id", .tags = false},
      "0003_activity_listing", {"0001_activities"}));
  return out;
}

std::vector<ListingModule> listingModules() {
  return {
      {"contacts", contacts::migrations(), contactsSdk7(),
       "0007_contacts:recorded 0007_contacts_count_slots:ran 0007_contacts_search_queue:ran "
       "0008_contacts_custom_fields:ran ",
       "contact_tags"},
      {"companies", companies::migrations(), companiesSdk7(),
       "0008_crm_companies:recorded 0008_crm_companies_count_slots:ran "
       "0008_crm_companies_search_queue:ran "
       "0009_crm_companies_custom_fields:ran ",
       "crm_company_tags"},
      {"deals",
       deals::migrations(),
       {},
       "0004_deals:recorded 0005_deal_listing:recorded 0006_deal_stage_totals:recorded "
       "0008_deals_search_queue:ran 0009_deal_count_slots:ran 0010_deal_stage_totals_slots:ran ",
       ""},
      {"activities", activities::migrations(), activitiesSdk7(),
       "0004_activities:recorded 0004_activities_count_slots:ran "
       "0004_activities_search_queue:ran "
       "0005_activities_custom_fields:ran ",
       ""},
      {"pipelines",
       pipelines::migrations(),
       {},
       "0002_pipelines:recorded 0003_pipeline_listing:recorded 0004_pipeline_count_slots:ran ",
       ""}};
}

}  // namespace

class ListingTablesSchemaTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ListingTablesSchemaTest);
  CPPUNIT_TEST(upgradedSchemaEqualsFreshForEveryListingModule);
  CPPUNIT_TEST(freshSchemaHasTheListingTables);
  CPPUNIT_TEST(contactsUpgradeKeepsRowsAndCounts);
  CPPUNIT_TEST(aFieldAddedLaterUpgradesTheTable);
  CPPUNIT_TEST_SUITE_END();

 public:
  void upgradedSchemaEqualsFreshForEveryListingModule() {
    for (const ListingModule& module : listingModules()) {
      auto upgraded = freshDatabase();
      Migrator(*upgraded).apply({{module.name, oldMigrations(module.name)}});
      if (!module.between.empty()) Migrator(*upgraded).apply({{module.name, module.between}});
      const auto applied = Migrator(*upgraded).apply({{module.name, module.current}});
      CPPUNIT_ASSERT_EQUAL_MESSAGE(module.name, module.expectedFlags, flags(applied));

      auto fresh = freshDatabase();
      for (const auto& m : Migrator(*fresh).apply({{module.name, module.current}})) {
        CPPUNIT_ASSERT_MESSAGE(module.name + "/" + m.id, m.ran);
      }
      CPPUNIT_ASSERT_EQUAL_MESSAGE(
          module.name, joined(schemaOf(*fresh)),
          joined(withoutSqliteAddColumnDefault(schemaOf(*upgraded), module.addColumnTable)));
    }
  }

  // The comparison above is not vacuous: the generated tables, keys, indexes
  // and triggers are there.
  void freshSchemaHasTheListingTables() {
    auto db = freshDatabase();
    Migrator(*db).apply({{"contacts", contacts::migrations()}});
    const std::string schema = joined(schemaOf(*db));
    const bool pg = rapport::test::onPostgres();
    for (const std::string& expected :
         {std::string("column contact_counts.slot"), std::string("column contact_tags.created_at"),
          std::string("column contact_tag_counts.total"),
          pg ? std::string("index contact_tags_ordered: CREATE INDEX contact_tags_ordered ON "
                           "public.contact_tags USING btree (company_id, tag_lower, created_at, "
                           "contact_id)")
             : std::string("index contact_tags_ordered on contact_tags: CREATE INDEX "
                           "contact_tags_ordered ON contact_tags (company_id, tag_lower, "
                           "created_at, contact_id)"),
          pg ? std::string("constraint contact_counts.contact_counts_pkey: PRIMARY KEY "
                           "(company_id, slot)")
             : std::string("key contact_counts pk unique 1 (company_id,slot,)"),
          pg ? std::string("trigger contact_tag_counts_track: CREATE TRIGGER "
                           "contact_tag_counts_track AFTER INSERT OR DELETE ON "
                           "public.contact_tags FOR EACH ROW EXECUTE FUNCTION "
                           "contact_tag_counts_track()")
             : std::string("trigger contact_tag_counts_delete on contact_tags"),
          // The count slots chosen among the free ones (SDK 10.1).
          pg ? std::string("LIMIT 1 FOR UPDATE SKIP LOCKED;")
             : std::string("trigger contact_counts_insert on contacts")}) {
      CPPUNIT_ASSERT_MESSAGE(expected + "\n" + schema, schema.find(expected) != std::string::npos);
    }
  }

  // Rows written under the old migrations stay, and the counts the old
  // triggers kept go on being kept by the new (recorded, not run) ones.
  void contactsUpgradeKeepsRowsAndCounts() {
    auto db = freshDatabase();
    Migrator(*db).apply({{"contacts", oldMigrations("contacts")}});
    insertContact(*db, "comp_a", "cont_1", {"vip", "lead"});
    insertContact(*db, "comp_a", "cont_2", {"vip"});
    insertContact(*db, "comp_b", "cont_3", {});

    Migrator(*db).apply({{"contacts", contactsSdk7()}});
    Migrator(*db).apply({{"contacts", contacts::migrations()}});
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3},
                         db->query("SELECT COUNT(*) AS n FROM contacts").front().i64("n"));
    insertContact(*db, "comp_a", "cont_4", {"vip"});
    db->exec("DELETE FROM contact_tags WHERE contact_id = ?", {"cont_1"});
    db->exec("DELETE FROM contacts WHERE id = ?", {"cont_1"});

    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, total(*db, "contact_counts", "comp_a"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, total(*db, "contact_counts", "comp_b"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, tagTotal(*db, "comp_a", "vip"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, tagTotal(*db, "comp_a", "lead"));
    // A slot that came back to 0 is removed: on SQLite (one slot) the tag's
    // only row. On PostgreSQL the +1 and -1 may have gone to two slots.
    if (!rapport::test::onPostgres()) {
      CPPUNIT_ASSERT_EQUAL(
          std::int64_t{0},
          db->query("SELECT COUNT(*) AS n FROM contact_tag_counts WHERE tag_lower = 'lead'")
              .front()
              .i64("n"));
    }
  }

 private:
  static void insertContact(SqlDatabase& db, const std::string& tenant, const std::string& id,
                            const std::vector<std::string>& tags) {
    db.exec(
        "INSERT INTO contacts (id, company_id, name, created_at, updated_at) "
        "VALUES (?, ?, ?, ?, ?)",
        {id, tenant, "Name " + id, std::int64_t{1000}, std::int64_t{1000}});
    for (const std::string& tag : tags) {
      db.exec(
          "INSERT INTO contact_tags (company_id, contact_id, tag_lower, created_at) "
          "VALUES (?, ?, ?, ?)",
          {tenant, id, tag, std::int64_t{1000}});
    }
  }

  static std::int64_t total(SqlDatabase& db, const std::string& table, const std::string& tenant) {
    return db
        .query("SELECT CAST(COALESCE(SUM(total), 0) AS BIGINT) AS n FROM " + table +
                   " WHERE company_id = ?",
               {tenant})
        .front()
        .i64("n");
  }

  static std::int64_t tagTotal(SqlDatabase& db, const std::string& tenant, const std::string& tag) {
    return db
        .query(
            "SELECT CAST(COALESCE(SUM(total), 0) AS BIGINT) AS n FROM contact_tag_counts "
            "WHERE company_id = ? AND tag_lower = ?",
            {tenant, tag})
        .front()
        .i64("n");
  }

  // The record engine's table, then a release that adds fields (`since`):
  // the first migration is unchanged (no warning, not run again), the new
  // one adds the columns and their indexes, the rows already there take the
  // defaults, and the schema is a fresh database's of the new declaration.
  void aFieldAddedLaterUpgradesTheTable() {
    rapport::ResourceSpec first{
        .path = "/crm/gadgets",
        .table = "gadgets",
        .recordType = "gadget",
        .idPrefix = "gad_",
        .eventPrefix = "crm.gadget",
        .noun = "Gadget",
        .fields = {{.name = "name", .required = true, .searchable = true, .sortable = true}},
        .storage = {.migration = "0001_gadgets", .recordColumn = "gadget_id"}};
    rapport::ResourceSpec second = first;
    second.fields.push_back(
        {.name = "color", .maxLength = 20, .sortable = true, .since = "0002_gadgets_more"});
    second.fields.push_back({.name = "active",
                             .kind = rapport::FieldKind::Boolean,
                             .defaultValue = true,
                             .filterable = true,
                             .since = "0002_gadgets_more"});

    auto db = freshDatabase();
    Migrator(*db).apply({{"gadgets", rapport::Resource(first).migrations()}});
    db->exec(
        "INSERT INTO gadgets (id, company_id, name, created_at, updated_at) "
        "VALUES ('gad_1', 'comp_a', 'Old', 1, 1)");
    Migrator upgrade(*db);
    const auto applied = upgrade.apply({{"gadgets", rapport::Resource(second).migrations()}});
    CPPUNIT_ASSERT_EQUAL(std::string("0002_gadgets_more:ran "), flags(applied));
    CPPUNIT_ASSERT_MESSAGE(joined(upgrade.warnings()), upgrade.warnings().empty());
    const rapport::Row row =
        db->query("SELECT color, active FROM gadgets WHERE id = 'gad_1'").front();
    CPPUNIT_ASSERT(row.isNull("color"));
    CPPUNIT_ASSERT(row.flag("active"));

    auto fresh = freshDatabase();
    Migrator(*fresh).apply({{"gadgets", rapport::Resource(second).migrations()}});
    const std::string schema = joined(schemaOf(*fresh));
    CPPUNIT_ASSERT_EQUAL(schema, joined(schemaOf(*db)));
    for (const std::string index : {"gadgets_color", "gadgets_active", "gadgets_search"}) {
      CPPUNIT_ASSERT_MESSAGE(index + "\n" + schema, schema.find(index) != std::string::npos);
    }
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ListingTablesSchemaTest);
