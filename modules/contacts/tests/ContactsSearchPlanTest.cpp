// unit.contacts: the contacts list stays fast as data grows: every search and
// filter runs on an index, on both engines (docs/modules/contacts.md). The
// declaration's WHERE clauses (rapport::Resource::where) over the tables the
// record engine generates run through the host's storage layer, and each
// SELECT is explained first (EXPLAIN QUERY PLAN on SQLite, EXPLAIN on
// PostgreSQL).
#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ContactsResource.h"
#include "rapport/ids.h"
#include "rapport/list.h"
#include "rapport/search.h"
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
using rapport::test::RecordingTx;
using rapport::test::scansWholeTable;

// The list's historic query parameters, as a request sends them.
std::map<std::string, std::string> where(const std::string& name, const std::string& value) {
  return {{name, value}};
}

const rapport::Resource& contactsResource() {
  static const rapport::Resource resource(contacts::contactsSpec());
  return resource;
}

// The record engine's tag table of contacts.
constexpr rapport::TagTable kTags{"contact_tags", "contact_id", "contacts", "contact_tag_counts"};

const std::string kTenant = "comp_tenant";
const std::string kOtherTenant = "comp_other";

}  // namespace

class ContactsSearchPlanTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ContactsSearchPlanTest);
  CPPUNIT_TEST(testContactSearchUsesTheTrigramIndex);
  CPPUNIT_TEST(testRarestTrigramsSearchUsesTheTrigramIndex);
  CPPUNIT_TEST(testRarestTrigramsFindWhatTheWholeTermFinds);
  CPPUNIT_TEST(testShortContactSearchStaysInTheTenant);
  CPPUNIT_TEST(testContactFiltersUseIndexes);
  CPPUNIT_TEST_SUITE_END();

 public:
  // One database for the fixture: the modules' migrations and enough rows in
  // two tenants that PostgreSQL's planner prefers indexes on its own.
  static rapport::host::SqlDatabase& db() {
    static std::unique_ptr<rapport::host::SqlDatabase> db = [] {
      auto opened = rapport::test::migratedDatabase("contacts", contacts::migrations());
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
          const std::string id = rapport::newId("cont_");
          const std::vector<std::string> tags = {"tag" + std::to_string(i % 100)};
          tx.exec(
              "INSERT INTO contacts (id, company_id, name, email, phone, crm_company_id, "
              "owner_id, tags, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
              {id, tenant, "Person " + n, "person" + n + "@" + tenant + ".example", "+1 555 " + n,
               "comp_c" + std::to_string(i % 50), "user_u" + std::to_string(i % 10),
               rapport::tagsToJsonText(tags), now + i, now + i});
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
            "INSERT INTO contacts (id, company_id, name, tags, created_at, updated_at) "
            "SELECT 'cont_bulk' || i, " +
            tenantOf + ", 'Bulk', '[]', i, i FROM n");
    // What autovacuum does in a running database: planner statistics, and
    // the GIN indexes' own (without them PostgreSQL guesses their cost high).
    if (db.dialect() == Dialect::PostgreSQL) {
      for (const char* table : {"contacts", "contact_tags"}) {
        db.exec(std::string("VACUUM ANALYZE ") + table);
      }
    }
  }

  // Plans of the page and count queries of a contacts list; checks the result
  // size. A narrowed list (a search of 3 characters or more) counts its
  // matches in the page's statement: one plan (rapport::selectPage).
  static std::vector<std::string> contactPlans(const std::map<std::string, std::string>& query,
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
          rapport::selectPage(explaining, contactsResource().columns(), "contacts",
                              contactsResource().where(request, explaining.dialect(), kTenant),
                              {.column = "created_at", .descending = true},
                              {.page = 1, .perPage = 20}, "contact_counts");
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

  // PostgreSQL: the plan of `sql` as a prepared statement runs it from its
  // sixth execution on (the generic plan, blind to the values), on a copy of
  // contact_tags that has no statistics yet (a young table: a temporary one
  // of the same shape, which the session's search path finds first), one
  // tenant's 20,000 rows in it.
  static std::string genericPlanOnYoungTags(const std::string& sql, const Params& params) {
    std::string plan;
    db().transaction(kTenant, [&](rapport::Tx& tx) {
      tx.exec(
          "CREATE TEMP TABLE contact_tags (LIKE public.contact_tags INCLUDING ALL) "
          "ON COMMIT DROP",
          {});
      tx.exec(
          "INSERT INTO contact_tags (company_id, contact_id, tag_lower, created_at) "
          "SELECT ?, 'cont_young' || g, 'tag' || (g % 3), g "
          "FROM generate_series(1, 20000) g",
          {kTenant});
      tx.exec("SET LOCAL plan_cache_mode = force_generic_plan", {});
      for (const rapport::Row& row : tx.query("EXPLAIN " + sql, params)) {
        plan += row.at(row.size() - 1).asString() + "\n";
      }
    });
    return plan;
  }

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

  // A search's one statement reads the search index and the matches by key:
  // SQLite's FTS5 table then the rowids, PostgreSQL's trigram GIN index.
  static void assertSearchReadsTheIndex(const std::string& plan) {
    if (onSqlite()) {
      CPPUNIT_ASSERT_MESSAGE(plan, has(plan, "contacts_search VIRTUAL TABLE"));
      CPPUNIT_ASSERT_MESSAGE(plan, has(plan, "USING INTEGER PRIMARY KEY (rowid=?)"));
      CPPUNIT_ASSERT_MESSAGE(plan, !scansWholeTable(plan, "contacts"));
    } else {
      CPPUNIT_ASSERT_MESSAGE(plan, has(plan, "Bitmap Index Scan on contacts_search"));
      CPPUNIT_ASSERT_MESSAGE(plan, !has(plan, "Seq Scan"));
    }
  }

  void testContactSearchUsesTheTrigramIndex() {
    // Only Person 123 has "person123@" in its e-mail.
    for (const std::string& plan : contactPlans(where("search", "PERSON123@"), 1, 1)) {
      assertSearchReadsTheIndex(plan);
    }
    contactPlans(where("search", "555 123"), 11, 1);
  }

  void testRarestTrigramsSearchUsesTheTrigramIndex() {
    // The list's search as the record engine runs it (the trigram counts
    // read from the database, search.h): the index asked for the term's two
    // rarest trigrams, the term checked on their records; one statement
    // (the page and its total) on the index, sorted by rowid on SQLite.
    for (const std::string term : {"PERSON123@", "555 123", "person12"}) {
      std::vector<std::string> plans;
      std::int64_t total = 0;
      explained([&](Queryable& db) {
        rapport::WhereClause where(db.dialect(), kTenant);
        rapport::addTextSearch(db, where, "contacts", "contacts_search", term);
        CPPUNIT_ASSERT_MESSAGE(where.sql(),
                               has(where.sql(), onSqlite() ? "instr(" : "(search_text || '')"));
        ExplainingQueryable explaining(db);
        total = rapport::selectPage(explaining, contactsResource().columns(), "contacts", where,
                                    {.column = "created_at", .descending = true},
                                    {.page = 1, .perPage = 20}, "contact_counts")
                    .total;
        plans = explaining.plans;
      });
      // person12: the e-mails of Person 12, 120..129 and 1200..1299 (the
      // names have a space); 555 123: the phones of 123 and 1230..1239.
      const std::int64_t expected = term == "PERSON123@" ? 1 : (term == "person12" ? 111 : 11);
      CPPUNIT_ASSERT_EQUAL_MESSAGE(term + "\n" + describe(plans), expected, total);
      CPPUNIT_ASSERT_EQUAL(std::size_t{1}, plans.size());
      assertSearchReadsTheIndex(plans.front());
    }
  }

  // The rarest trigrams are a question to the index only: every term finds
  // the same records as the whole term asked of the index (the search
  // without a database), whichever trigrams its counts chose. Terms of
  // every shape: names, e-mails, phones, punctuation, digits only, any
  // case, LIKE's own characters, common and rare trigrams, none at all.
  void testRarestTrigramsFindWhatTheWholeTermFinds() {
    const std::vector<std::string> terms = {
        "person 1",   "PERSON 12", "erson 149",  "son1499@",  "n123@comp",   "@comp_tenant",
        "_tenant.ex", "t.example", "example",    "exampl",    "555 14",      "+1 555 1",
        "1 555 99",   "55 1",      "1499",       "0@co",      "rson",        "bulk",
        "p_o",        "comp%",     "other.exam", "e\nperson", "nobody here", "person999"};
    for (const std::string& term : terms) {
      const auto total = [&](bool rarest) {
        std::int64_t found = 0;
        explained([&](Queryable& db) {
          rapport::WhereClause where(db.dialect(), kTenant);
          if (rarest) {
            rapport::addTextSearch(db, where, "contacts", "contacts_search", term);
          } else {
            rapport::addTextSearch(where, "contacts_search", term);
          }
          found = rapport::selectPage(db, "id", "contacts", where,
                                      {.column = "created_at", .descending = true},
                                      {.page = 1, .perPage = 20}, "contact_counts")
                      .total;
        });
        return found;
      };
      CPPUNIT_ASSERT_EQUAL_MESSAGE(term, total(false), total(true));
    }
    // And a term nobody has is nobody's, whichever way.
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, [&] {
      std::int64_t found = -1;
      explained([&](Queryable& db) {
        rapport::WhereClause where(db.dialect(), kTenant);
        rapport::addTextSearch(db, where, "contacts", "contacts_search", "zzqqxx");
        found = rapport::countList(db, "contacts", where, "contact_counts");
      });
      return found;
    }());
  }

  void testShortContactSearchStaysInTheTenant() {
    // Shorter than a trigram: SQLite scans the tenant's rows through the
    // tenant index (documented); PostgreSQL decides with its statistics.
    for (const std::string& plan : contactPlans(where("search", "99"), 24)) {
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
      // What the record engine's delete runs first (rapport::deleteTagRows).
      rapport::deleteTagRows(recording, kTags, "cont_absent");
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
      // The generic plan too (what a prepared statement runs from its sixth
      // execution on, the values unknown), on a table without statistics:
      // through the key, not an index led by company_id (which walked the
      // tenant's rows: 3.6 ms instead of 0.06 at 67,000 rows).
      const std::string generic =
          genericPlanOnYoungTags("SELECT 1 FROM " + statement.substr(12), deletes.front().second);
      CPPUNIT_ASSERT_MESSAGE(generic, has(generic, "_pkey"));
      CPPUNIT_ASSERT_MESSAGE(generic, !has(generic, "company_id_tag_lower"));
    }
    assertLoneTagFilterUsesTheTagIndex(contactPlans(where("tag", "TAG7"), 15), "contacts",
                                       "contact_tags", "contact_tag_counts");
    for (const std::string& plan : contactPlans(where("company_id", "comp_c7"), 30)) {
      CPPUNIT_ASSERT_MESSAGE(plan, has(plan, "contacts_crm_company"));
    }
    for (const std::string& plan : contactPlans(where("owner_id", "user_u3"), 150)) {
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
};

CPPUNIT_TEST_SUITE_REGISTRATION(ContactsSearchPlanTest);
