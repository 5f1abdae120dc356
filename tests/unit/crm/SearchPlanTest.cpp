// The lists of contacts and CRM companies stay fast as data grows: every
// search and filter runs on an index, on both engines. The stores' own SQL is
// run through the host's storage layer and each SELECT is explained first
// (EXPLAIN QUERY PLAN on SQLite, EXPLAIN on PostgreSQL).
#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "CompaniesStore.h"
#include "ContactsStore.h"
#include "companies_migrations.gen.h"
#include "contacts_migrations.gen.h"
#include "rapport/ids.h"
#include "rapport/time.h"
#include "storage/Migrator.h"
#include "storage/SqlDatabase.h"
#include "support/TestEnv.h"

namespace {

using rapport::Dialect;
using rapport::Params;
using rapport::Queryable;
using rapport::Result;

const std::string kTenant = "comp_tenant";
const std::string kOtherTenant = "comp_other";

// Explains every SELECT before running it, and keeps the plans.
class ExplainingQueryable final : public Queryable {
 public:
  explicit ExplainingQueryable(Queryable& inner) : inner_(inner) {}
  Dialect dialect() const override { return inner_.dialect(); }
  Result query(std::string_view sql, const Params& params) override {
    if (sql.rfind("SELECT", 0) == 0) {
      const char* explain = dialect() == Dialect::SQLite ? "EXPLAIN QUERY PLAN " : "EXPLAIN ";
      std::string plan;
      for (const rapport::Row& row : inner_.query(explain + std::string(sql), params)) {
        // SQLite: (id, parent, notused, detail); PostgreSQL: one "QUERY PLAN" column.
        plan += row.at(row.size() - 1).asString() + "\n";
      }
      plans.push_back(plan);
    }
    return inner_.query(sql, params);
  }
  std::int64_t exec(std::string_view sql, const Params& params) override {
    return inner_.exec(sql, params);
  }

  std::vector<std::string> plans;

 private:
  Queryable& inner_;
};

// A transaction that keeps every DELETE it runs (the write paths: a tag row
// delete runs on every create, update and delete), to explain afterwards.
class RecordingTx final : public rapport::Tx {
 public:
  explicit RecordingTx(rapport::Tx& inner) : inner_(inner) {}
  Dialect dialect() const override { return inner_.dialect(); }
  Result query(std::string_view sql, const Params& params) override {
    return inner_.query(sql, params);
  }
  std::int64_t exec(std::string_view sql, const Params& params) override {
    if (sql.rfind("DELETE", 0) == 0) deletes.emplace_back(std::string(sql), params);
    return inner_.exec(sql, params);
  }
  const std::string& companyId() const override { return inner_.companyId(); }
  void emit(const std::string& type, const rapport::Json& data) override {
    inner_.emit(type, data);
  }
  void afterCommit(std::function<void()> fn) override { inner_.afterCommit(std::move(fn)); }

  std::vector<std::pair<std::string, Params>> deletes;

 private:
  rapport::Tx& inner_;
};

bool has(const std::string& plan, const std::string& text) {
  return plan.find(text) != std::string::npos;
}

// A SQLite plan line that reads the whole of `table` ("SCAN contacts" or
// "SCAN contacts USING INDEX ..."), as opposed to a SEARCH on an index.
bool scansWholeTable(const std::string& plan, const std::string& table) {
  const std::string scan = "SCAN " + table;
  for (std::size_t at = plan.find(scan); at != std::string::npos; at = plan.find(scan, at + 1)) {
    const char next = at + scan.size() < plan.size() ? plan[at + scan.size()] : '\n';
    if (next == '\n' || next == ' ') return true;
  }
  return false;
}

// A filter of the list with one field set: where(&ContactFilter::tag, "vip").
template <typename Filter>
Filter where(std::optional<std::string> Filter::*field, std::string value) {
  Filter filter;
  filter.*field = std::move(value);
  return filter;
}

std::string describe(const std::vector<std::string>& plans) {
  std::string out;
  for (const std::string& plan : plans) out += "---\n" + plan;
  return out;
}

}  // namespace

class SearchPlanTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(SearchPlanTest);
  CPPUNIT_TEST(testContactSearchUsesTheTrigramIndex);
  CPPUNIT_TEST(testShortContactSearchStaysInTheTenant);
  CPPUNIT_TEST(testContactFiltersUseIndexes);
  CPPUNIT_TEST(testCompanySearchUsesTheTrigramIndex);
  CPPUNIT_TEST(testCompanyFiltersUseIndexes);
  CPPUNIT_TEST_SUITE_END();

 public:
  // One database for the fixture: the modules' migrations and enough rows in
  // two tenants that PostgreSQL's planner prefers indexes on its own.
  static rapport::host::SqlDatabase& db() {
    static std::unique_ptr<rapport::host::SqlDatabase> db = [] {
      rapport::host::StorageOptions options;
      options.url = rapport::test::freshDatabaseUrl("crm");
      auto opened = rapport::host::SqlDatabase::open(options);
      rapport::host::Migrator(*opened).apply(
          {{"contacts", rapport_generated::contacts::migrations()},
           {"companies", rapport_generated::companies::migrations()}});
      seed(*opened);
      return opened;
    }();
    return *db;
  }

  static void seed(rapport::host::SqlDatabase& db) {
    for (const std::string& tenant : {kTenant, kOtherTenant}) {
      db.transaction(tenant, [&](rapport::Tx& tx) {
        const std::int64_t now = rapport::nowMicros();
        for (int i = 0; i < 1500; ++i) {
          const std::string n = std::to_string(i);
          contacts::store::insert(tx, rapport::newId("cont_"),
                                  {.name = "Person " + n,
                                   .email = "person" + n + "@" + tenant + ".example",
                                   .phone = "+1 555 " + n,
                                   .jobTitle = std::nullopt,
                                   .crmCompanyId = "comp_c" + std::to_string(i % 50),
                                   .ownerId = "user_u" + std::to_string(i % 10),
                                   .tags = {"tag" + std::to_string(i % 100)},
                                   .notes = std::nullopt},
                                  now + i);
          companies::store::insert(tx, rapport::newId("comp_"),
                                   {.name = "Company " + n,
                                    .document = "DOC-" + n,
                                    .industry = "industry " + std::to_string(i % 40),
                                    .website = "https://company" + n + ".example",
                                    .size = "size " + std::to_string(i % 30),
                                    .annualRevenue = i,
                                    .phone = std::nullopt,
                                    .tags = {"tag" + std::to_string(i % 100)},
                                    .notes = std::nullopt},
                                   now + i);
        }
      });
    }
    // Many more rows, half of them the tenant's, as in a database that has
    // grown: only then does PostgreSQL's planner prefer the search index to
    // reading the tenant's rows. They match none of the searches below.
    const std::string numbers =
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) ";
    const std::string tenantOf =
        "CASE WHEN i % 2 = 0 THEN '" + kTenant + "' ELSE '" + kOtherTenant + "' END";
    db.exec(numbers +
            "INSERT INTO contacts (id, company_id, name, tags, created_at, updated_at) "
            "SELECT 'cont_bulk' || i, " +
            tenantOf + ", 'Bulk', '[]', i, i FROM n");
    db.exec(numbers +
            "INSERT INTO crm_companies (id, company_id, name, tags, created_at, updated_at) "
            "SELECT 'comp_bulk' || i, " +
            tenantOf + ", 'Bulk', '[]', i, i FROM n");
    // What autovacuum does in a running database: planner statistics, and
    // the GIN indexes' own (without them PostgreSQL guesses their cost high).
    if (db.dialect() == Dialect::PostgreSQL) {
      for (const char* table : {"contacts", "contact_tags", "crm_companies", "crm_company_tags"}) {
        db.exec(std::string("VACUUM ANALYZE ") + table);
      }
    }
  }

  // Plans of the page and count queries of a contacts list; checks the result size.
  static std::vector<std::string> contactPlans(const contacts::ContactFilter& filter,
                                               std::int64_t expectedTotal) {
    std::vector<std::string> plans;
    explained([&](Queryable& db) {
      ExplainingQueryable explaining(db);
      const contacts::ContactPage page = contacts::store::list(
          explaining, kTenant, filter, contacts::store::defaultSort(), {.page = 1, .perPage = 20});
      CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(explaining.plans), expectedTotal, page.total);
      plans = explaining.plans;
    });
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), plans.size());
    return plans;
  }

  static std::vector<std::string> companyPlans(const companies::CompanyFilter& filter,
                                               std::int64_t expectedTotal) {
    std::vector<std::string> plans;
    explained([&](Queryable& db) {
      ExplainingQueryable explaining(db);
      const companies::CompanyPage page = companies::store::list(
          explaining, kTenant, filter, companies::store::defaultSort(), {.page = 1, .perPage = 20});
      CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(explaining.plans), expectedTotal, page.total);
      plans = explaining.plans;
    });
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), plans.size());
    return plans;
  }

  // Runs `fn` in a transaction (the plans of a real request, on one session).
  static void explained(const std::function<void(Queryable&)>& fn) {
    db().transaction(kTenant, [&](rapport::Tx& tx) { fn(tx); });
  }

  static bool onSqlite() { return db().dialect() == Dialect::SQLite; }

  static std::string explain(const std::string& sql, const Params& params) {
    const char* explain = onSqlite() ? "EXPLAIN QUERY PLAN " : "EXPLAIN ";
    std::string plan;
    for (const rapport::Row& row : db().query(explain + sql, params)) {
      plan += row.at(row.size() - 1).asString() + "\n";
    }
    return plan;
  }

  // A list filtered by one tag alone (plans: the page, then the count). The
  // page takes its ids in order from the tag table's
  // (company_id, tag_lower, created_at, id) index and looks only those
  // records up by id; the count reads one row of the tag counts table.
  static void assertLoneTagFilterUsesTheTagIndex(const std::vector<std::string>& plans,
                                                 const std::string& records,
                                                 const std::string& tags,
                                                 const std::string& counts) {
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, plans.size());
    const std::string& page = plans.front();
    const std::string& count = plans.back();
    CPPUNIT_ASSERT_MESSAGE(page, has(page, tags + "_ordered"));
    CPPUNIT_ASSERT_MESSAGE(count, has(count, counts));
    if (onSqlite()) {
      CPPUNIT_ASSERT_MESSAGE(page,
                             has(page, "SEARCH " + records + " USING INDEX sqlite_autoindex"));
      CPPUNIT_ASSERT_MESSAGE(page, !scansWholeTable(page, records));
      CPPUNIT_ASSERT_MESSAGE(count, has(count, "SEARCH " + counts + " USING INDEX"));
      CPPUNIT_ASSERT_MESSAGE(count, !has(count, "SEARCH " + records + " "));
      CPPUNIT_ASSERT_MESSAGE(count, !has(count, "SEARCH " + tags + " "));
    } else {
      CPPUNIT_ASSERT_MESSAGE(page, !has(page, "Seq Scan"));
      CPPUNIT_ASSERT_MESSAGE(count, !has(count, "Seq Scan"));
      // The planner picks a plain or a bitmap scan of the key by its
      // statistics (autovacuum timing): either reads the counts by index.
      CPPUNIT_ASSERT_MESSAGE(count, has(count, "Index Scan using " + counts + "_pkey") ||
                                        has(count, "Bitmap Index Scan on " + counts + "_pkey"));
      CPPUNIT_ASSERT_MESSAGE(count, !has(count, " on " + tags + " "));
    }
  }

  void testContactSearchUsesTheTrigramIndex() {
    // Only Person 123 has "person123@" in its e-mail.
    for (const std::string& plan :
         contactPlans(where(&contacts::ContactFilter::search, "PERSON123@"), 1)) {
      if (onSqlite()) {
        CPPUNIT_ASSERT_MESSAGE(plan, has(plan, "contacts_search VIRTUAL TABLE"));
        CPPUNIT_ASSERT_MESSAGE(plan, has(plan, "USING INTEGER PRIMARY KEY (rowid=?)"));
        CPPUNIT_ASSERT_MESSAGE(plan, !scansWholeTable(plan, "contacts"));
      } else {
        CPPUNIT_ASSERT_MESSAGE(plan, has(plan, "Bitmap Index Scan on contacts_search"));
        CPPUNIT_ASSERT_MESSAGE(plan, !has(plan, "Seq Scan"));
      }
    }
    contactPlans(where(&contacts::ContactFilter::search, "555 123"), 11);
  }

  void testShortContactSearchStaysInTheTenant() {
    // Shorter than a trigram: SQLite scans the tenant's rows through the
    // tenant index (documented); PostgreSQL decides with its statistics.
    for (const std::string& plan :
         contactPlans(where(&contacts::ContactFilter::search, "99"), 24)) {
      if (onSqlite()) {
        CPPUNIT_ASSERT_MESSAGE(plan, has(plan, "(company_id=?)"));
        CPPUNIT_ASSERT_MESSAGE(plan, !scansWholeTable(plan, "contacts"));
      }
    }
  }

  void testContactFiltersUseIndexes() {
    // Writing a contact's tags first deletes its tag rows: through the
    // primary key (contact_id, tag_lower), not the tenant's tag rows.
    std::vector<std::pair<std::string, Params>> deletes;
    db().transaction(kTenant, [&](rapport::Tx& tx) {
      RecordingTx recording(tx);
      contacts::store::remove(recording, "cont_absent");
      deletes = recording.deletes;
    });
    CPPUNIT_ASSERT(!deletes.empty());
    // Explained as the SELECT of the same rows: the planner treats the WHERE
    // alike, and EXPLAIN of a DELETE through Poco's SQLite binding leaves
    // its statement open (the session's next COMMIT then fails).
    const std::string& statement = deletes.front().first;
    CPPUNIT_ASSERT_EQUAL(std::string("DELETE FROM "), statement.substr(0, 12));
    const std::string plan =
        explain("SELECT 1 FROM " + statement.substr(12), deletes.front().second);
    if (onSqlite()) {
      CPPUNIT_ASSERT_MESSAGE(plan, has(plan, "sqlite_autoindex_contact_tags_1 (contact_id=?)"));
    } else {
      CPPUNIT_ASSERT_MESSAGE(plan, has(plan, "contact_tags_pkey"));
    }
    assertLoneTagFilterUsesTheTagIndex(
        contactPlans(where(&contacts::ContactFilter::tag, "TAG7"), 15), "contacts", "contact_tags",
        "contact_tag_counts");
    for (const std::string& plan :
         contactPlans(where(&contacts::ContactFilter::companyId, "comp_c7"), 30)) {
      CPPUNIT_ASSERT_MESSAGE(plan, has(plan, "contacts_crm_company"));
    }
    for (const std::string& plan :
         contactPlans(where(&contacts::ContactFilter::ownerId, "user_u3"), 150)) {
      if (onSqlite()) CPPUNIT_ASSERT_MESSAGE(plan, !scansWholeTable(plan, "contacts"));
    }
    // The unfiltered total reads the tenant's row of contact_counts (kept by
    // triggers), not the tenant's contacts.
    {
      const std::string plan = contactPlans({}, 11500).back();
      CPPUNIT_ASSERT_MESSAGE(plan, has(plan, "contact_counts"));
      CPPUNIT_ASSERT_MESSAGE(plan, !has(plan, "contacts"));
    }
    // The default order walks the tenant's index instead of sorting.
    if (onSqlite()) {
      const std::string plan = contactPlans({}, 11500).front();
      CPPUNIT_ASSERT_MESSAGE(plan, has(plan, "contacts_created (company_id=?)"));
      CPPUNIT_ASSERT_MESSAGE(plan, !has(plan, "TEMP B-TREE"));
    }
  }

  void testCompanySearchUsesTheTrigramIndex() {
    for (const std::string& plan :
         companyPlans(where(&companies::CompanyFilter::search, "Company1234.EX"), 1)) {
      if (onSqlite()) {
        CPPUNIT_ASSERT_MESSAGE(plan, has(plan, "crm_companies_search VIRTUAL TABLE"));
        CPPUNIT_ASSERT_MESSAGE(plan, has(plan, "USING INTEGER PRIMARY KEY (rowid=?)"));
        CPPUNIT_ASSERT_MESSAGE(plan, !scansWholeTable(plan, "crm_companies"));
      } else {
        CPPUNIT_ASSERT_MESSAGE(plan, has(plan, "Bitmap Index Scan on crm_companies_search"));
        CPPUNIT_ASSERT_MESSAGE(plan, !has(plan, "Seq Scan"));
      }
    }
    companyPlans(where(&companies::CompanyFilter::search, "doc-77"), 11);
    companyPlans(where(&companies::CompanyFilter::search, "77"), 24);
  }

  void testCompanyFiltersUseIndexes() {
    // The unfiltered total reads the tenant's row of crm_company_counts.
    {
      const std::string plan = companyPlans({}, 11500).back();
      CPPUNIT_ASSERT_MESSAGE(plan, has(plan, "crm_company_counts"));
      CPPUNIT_ASSERT_MESSAGE(plan, !has(plan, "crm_companies"));
    }
    for (const std::string& plan :
         companyPlans(where(&companies::CompanyFilter::industry, "INDUSTRY 7"), 38)) {
      if (onSqlite()) {
        CPPUNIT_ASSERT_MESSAGE(plan, has(plan, "crm_companies_industry"));
      } else {
        CPPUNIT_ASSERT_MESSAGE(plan, !has(plan, "Seq Scan"));
      }
    }
    for (const std::string& plan :
         companyPlans(where(&companies::CompanyFilter::size, "Size 7"), 50)) {
      if (onSqlite()) {
        CPPUNIT_ASSERT_MESSAGE(plan, has(plan, "crm_companies_size"));
      } else {
        CPPUNIT_ASSERT_MESSAGE(plan, !has(plan, "Seq Scan"));
      }
    }
    assertLoneTagFilterUsesTheTagIndex(
        companyPlans(where(&companies::CompanyFilter::tag, "tag7"), 15), "crm_companies",
        "crm_company_tags", "crm_company_tag_counts");
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(SearchPlanTest);
