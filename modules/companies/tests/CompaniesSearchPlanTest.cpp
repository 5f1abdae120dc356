// unit.companies: the CRM companies list stays fast as data grows: every
// search and filter runs on an index, on both engines
// (docs/modules/companies.md). The declaration's WHERE clauses
// (rapport::Resource::where) over the tables the record engine generates run
// through the host's storage layer, and each SELECT is explained first
// (EXPLAIN QUERY PLAN on SQLite, EXPLAIN on PostgreSQL).
#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "CompaniesResource.h"
#include "rapport/ids.h"
#include "rapport/tags.h"
#include "rapport/time.h"
#include "storage/Migrator.h"
#include "storage/SqlDatabase.h"
#include "support/QueryPlans.h"
#include "support/TestEnv.h"

namespace {

using rapport::Dialect;
using rapport::Params;
using rapport::Queryable;
using rapport::Result;
using rapport::test::describe;
using rapport::test::ExplainingQueryable;
using rapport::test::has;
using rapport::test::scansWholeTable;

// The list's historic query parameters, as a request sends them.
std::map<std::string, std::string> where(const std::string& name, const std::string& value) {
  return {{name, value}};
}

const rapport::Resource& companiesResource() {
  static const rapport::Resource resource(companies::companiesSpec());
  return resource;
}

// The record engine's tag table of crm_companies.
constexpr rapport::TagTable kTags{"crm_company_tags", "crm_company_id", "crm_companies",
                                  "crm_company_tag_counts"};

const std::string kTenant = "comp_tenant";
const std::string kOtherTenant = "comp_other";

}  // namespace

class CompaniesSearchPlanTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(CompaniesSearchPlanTest);
  CPPUNIT_TEST(testCompanySearchUsesTheTrigramIndex);
  CPPUNIT_TEST(testCompanyFiltersUseIndexes);
  CPPUNIT_TEST(testExactIndustryFilterUsesItsIndex);
  CPPUNIT_TEST_SUITE_END();

 public:
  // One database for the fixture: the modules' migrations and enough rows in
  // two tenants that PostgreSQL's planner prefers indexes on its own.
  static rapport::host::SqlDatabase& db() {
    static std::unique_ptr<rapport::host::SqlDatabase> db = [] {
      auto opened = rapport::test::migratedDatabase("companies", companies::migrations());
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
          const std::string id = rapport::newId("comp_");
          const std::vector<std::string> tags = {"tag" + std::to_string(i % 100)};
          tx.exec(
              "INSERT INTO crm_companies (id, company_id, name, document, industry, website, "
              "size, annual_revenue, tags, created_at, updated_at) "
              "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
              {id, tenant, "Company " + n, "DOC-" + n, "industry " + std::to_string(i % 40),
               "https://company" + n + ".example", "size " + std::to_string(i % 30),
               std::int64_t{i}, rapport::tagsToJsonText(tags), now + i, now + i});
          rapport::replaceTagRows(tx, kTags, id, tags);
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
            "INSERT INTO crm_companies (id, company_id, name, tags, created_at, updated_at) "
            "SELECT 'comp_bulk' || i, " +
            tenantOf + ", 'Bulk', '[]', i, i FROM n");
    // What autovacuum does in a running database: planner statistics, and
    // the GIN indexes' own (without them PostgreSQL guesses their cost high).
    if (db.dialect() == Dialect::PostgreSQL) {
      for (const char* table : {"crm_companies", "crm_company_tags"}) {
        db.exec(std::string("VACUUM ANALYZE ") + table);
      }
    }
  }

  // Plans of the page and count queries; a narrowed list (a search of 3
  // characters or more) counts its matches in the page's statement: one plan
  // (rapport::selectPage).
  static std::vector<std::string> companyPlans(const std::map<std::string, std::string>& query,
                                               std::int64_t expectedTotal,
                                               std::size_t statements = 2) {
    std::vector<std::string> plans;
    explained([&](Queryable& db) {
      ExplainingQueryable explaining(db);
      // The page as the list runs it (the record query engine pages through
      // rapport::selectPage, newest first).
      rapport::Request request;
      request.query = query;
      const rapport::ListPage page =
          rapport::selectPage(explaining, companiesResource().columns(), "crm_companies",
                              companiesResource().where(request, explaining.dialect(), kTenant),
                              {.column = "created_at", .descending = true},
                              {.page = 1, .perPage = 20}, "crm_company_counts");
      CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(explaining.plans), expectedTotal, page.total);
      plans = explaining.plans;
    });
    CPPUNIT_ASSERT_EQUAL(statements, plans.size());
    return plans;
  }

  // Runs `fn` in a transaction (the plans of a real request, on one session).
  static void explained(const std::function<void(Queryable&)>& fn) {
    db().transaction(kTenant, [&](rapport::Tx& tx) { fn(tx); });
  }

  static bool onSqlite() { return db().dialect() == Dialect::SQLite; }

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

  void testCompanySearchUsesTheTrigramIndex() {
    for (const std::string& plan : companyPlans(where("search", "Company1234.EX"), 1, 1)) {
      if (onSqlite()) {
        CPPUNIT_ASSERT_MESSAGE(plan, has(plan, "crm_companies_search VIRTUAL TABLE"));
        CPPUNIT_ASSERT_MESSAGE(plan, has(plan, "USING INTEGER PRIMARY KEY (rowid=?)"));
        CPPUNIT_ASSERT_MESSAGE(plan, !scansWholeTable(plan, "crm_companies"));
      } else {
        CPPUNIT_ASSERT_MESSAGE(plan, has(plan, "Bitmap Index Scan on crm_companies_search"));
        CPPUNIT_ASSERT_MESSAGE(plan, !has(plan, "Seq Scan"));
      }
    }
    companyPlans(where("search", "doc-77"), 11, 1);
    companyPlans(where("search", "77"), 24);
  }

  void testCompanyFiltersUseIndexes() {
    // The unfiltered total reads the tenant's row of crm_company_counts.
    {
      const std::string plan = companyPlans({}, 11500).back();
      CPPUNIT_ASSERT_MESSAGE(plan, has(plan, "crm_company_counts"));
      CPPUNIT_ASSERT_MESSAGE(plan, !has(plan, "crm_companies"));
    }
    for (const std::string& plan : companyPlans(where("industry", "INDUSTRY 7"), 38)) {
      if (onSqlite()) {
        CPPUNIT_ASSERT_MESSAGE(plan, has(plan, "crm_companies_industry"));
      } else {
        CPPUNIT_ASSERT_MESSAGE(plan, !has(plan, "Seq Scan"));
      }
    }
    for (const std::string& plan : companyPlans(where("size", "Size 7"), 50)) {
      if (onSqlite()) {
        CPPUNIT_ASSERT_MESSAGE(plan, has(plan, "crm_companies_size"));
      } else {
        CPPUNIT_ASSERT_MESSAGE(plan, !has(plan, "Seq Scan"));
      }
    }
    assertLoneTagFilterUsesTheTagIndex(companyPlans(where("tag", "tag7"), 15), "crm_companies",
                                       "crm_company_tags", "crm_company_tag_counts");
  }

  // decisions §13: filter={"industry": "industry 7"} compares exactly, which
  // the historic index on lower(industry) cannot serve; its own index
  // (the field is `indexed`: crm_companies_industry_eq) does, on both engines. It serves the
  // hop company.industry of contacts and deals too: their semi-join selects
  // the ids of the tenant's companies of that industry.
  void testExactIndustryFilterUsesItsIndex() {
    std::vector<std::string> plans;
    explained([&](Queryable& db) {
      ExplainingQueryable explaining(db);
      rapport::WhereClause where(explaining.dialect(), kTenant);
      companiesResource().query().addFilter(
          where, rapport::Json::parse(R"({"industry": "industry 7"})"), nullptr);
      const rapport::ListPage page =
          rapport::selectPage(explaining, companiesResource().columns(), "crm_companies", where,
                              {.column = "created_at", .descending = true},
                              {.page = 1, .perPage = 20}, "crm_company_counts");
      CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(explaining.plans), std::int64_t{38}, page.total);
      const Result hop =
          explaining.query("SELECT id FROM crm_companies WHERE company_id = ? AND industry = ?",
                           {kTenant, "industry 7"});
      CPPUNIT_ASSERT_EQUAL(std::size_t{38}, hop.size());
      plans = explaining.plans;
    });
    CPPUNIT_ASSERT_EQUAL(std::size_t{3}, plans.size());
    for (const std::string& plan : plans) {
      CPPUNIT_ASSERT_MESSAGE(plan, has(plan, "crm_companies_industry_eq"));
    }
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(CompaniesSearchPlanTest);
