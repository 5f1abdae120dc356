// rapport/query.h: the SQL and parameters the shared list, search and tag
// helpers produce on each engine, and the request rules they share. The SQL
// itself runs on both engines in unit.contacts and unit.companies (query plans) and the e2e suites.
#include <cppunit/extensions/HelperMacros.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "rapport/query.h"

using rapport::Dialect;
using rapport::Error;
using rapport::Json;
using rapport::Params;
using rapport::Value;
using rapport::WhereClause;

namespace {

// "[a, 1, null]": parameters as text, for one-line comparisons.
std::string show(const Params& params) {
  std::string out = "[";
  for (const Value& value : params) {
    if (out.size() > 1) out += ", ";
    out += value.isNull() ? "null" : value.asString();
  }
  return out + "]";
}

// Records every statement; a query answers one row {"total": 42}.
class RecordingTx final : public rapport::Tx {
 public:
  explicit RecordingTx(Dialect dialect = Dialect::SQLite) : dialect_(dialect) {}

  Dialect dialect() const override { return dialect_; }
  rapport::Result query(std::string_view sql, const Params& params) override {
    statements.emplace_back(std::string(sql), params);
    auto columns =
        std::make_shared<const std::vector<std::string>>(std::vector<std::string>{"total"});
    rapport::Result result;
    result.rows.emplace_back(columns, std::vector<Value>{Value(42)});
    return result;
  }
  std::int64_t exec(std::string_view sql, const Params& params) override {
    statements.emplace_back(std::string(sql), params);
    return 1;
  }
  const std::string& companyId() const override { return tenant_; }
  void emit(const std::string&, const Json&) override {}
  void afterCommit(std::function<void()>) override {}

  std::vector<std::pair<std::string, Params>> statements;

 private:
  Dialect dialect_;
  std::string tenant_ = "comp_t";
};

rapport::Request requestWithQuery(std::map<std::string, std::string> query) {
  rapport::Request request;
  request.query = std::move(query);
  return request;
}

}  // namespace

class QueryTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(QueryTest);
  CPPUNIT_TEST(testLikeContainsEscapes);
  CPPUNIT_TEST(testFtsPhraseQuotes);
  CPPUNIT_TEST(testWhereClauseAccumulates);
  CPPUNIT_TEST(testWhereClauseIsAValue);
  CPPUNIT_TEST(testNarrowingHidesTheTenantIndexOnSqliteOnly);
  CPPUNIT_TEST(testTextSearchOnPostgresqlIsLike);
  CPPUNIT_TEST(testTextSearchOnSqliteUsesFts5FromThreeCharacters);
  CPPUNIT_TEST(testTextSearchAsksTheIndexForTheRarestTrigrams);
  CPPUNIT_TEST(testTagFilter);
  CPPUNIT_TEST(testSetMembershipIsSoleOnlyAlone);
  CPPUNIT_TEST(testSelectPageOfALoneTagFilter);
  CPPUNIT_TEST(testSelectPage);
  CPPUNIT_TEST(testSelectPageCountsANarrowedListInThePage);
  CPPUNIT_TEST(testTagsJsonRoundTrip);
  CPPUNIT_TEST(testReplaceAndDeleteTagRows);
  CPPUNIT_TEST(testFilterParam);
  CPPUNIT_TEST(testSearchParam);
  CPPUNIT_TEST(testOptionalText);
  CPPUNIT_TEST(testConflictOnDuplicate);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testLikeContainsEscapes() {
    CPPUNIT_ASSERT_EQUAL(std::string("%ada%"), rapport::likeContains("ada"));
    CPPUNIT_ASSERT_EQUAL(std::string("%%"), rapport::likeContains(""));
    CPPUNIT_ASSERT_EQUAL(std::string("%50\\%\\_off\\\\%"), rapport::likeContains("50%_off\\"));
    // Quotes and FTS syntax mean nothing to LIKE: kept as they are.
    CPPUNIT_ASSERT_EQUAL(std::string("%\"a\" OR 'b'*%"), rapport::likeContains("\"a\" OR 'b'*"));
    CPPUNIT_ASSERT_EQUAL(std::string("%\xC3\xA9t\xC3\xA9%"),
                         rapport::likeContains("\xC3\xA9t\xC3\xA9"));
  }

  void testFtsPhraseQuotes() {
    CPPUNIT_ASSERT_EQUAL(std::string("\"ada\""), rapport::ftsPhrase("ada"));
    CPPUNIT_ASSERT_EQUAL(std::string("\"\""), rapport::ftsPhrase(""));
    CPPUNIT_ASSERT_EQUAL(std::string("\"say \"\"hi\"\"\""), rapport::ftsPhrase("say \"hi\""));
    // Operators, wildcards and LIKE characters stay literal inside the phrase.
    CPPUNIT_ASSERT_EQUAL(std::string("\"a OR b* NEAR(c) 5%_\\\""),
                         rapport::ftsPhrase("a OR b* NEAR(c) 5%_\\"));
  }

  // Copies are independent (the state behind the pointer is copied, the sole
  // set included); a move hands the state over.
  void testWhereClauseIsAValue() {
    WhereClause base(Dialect::SQLite, "comp_t");
    rapport::addTagFilter(base, {"contact_tags", "contact_id", "contacts", "contact_tag_counts"},
                          "VIP");
    WhereClause copy(base);
    copy.add("owner_id = ?", {"user_1"});
    CPPUNIT_ASSERT(base.soleSet() != nullptr);
    CPPUNIT_ASSERT(copy.soleSet() == nullptr);
    CPPUNIT_ASSERT_EQUAL(std::string("[comp_t, comp_t, vip]"), show(base.params()));
    CPPUNIT_ASSERT_EQUAL(std::string("[comp_t, comp_t, vip, user_1]"), show(copy.params()));

    WhereClause assigned(Dialect::PostgreSQL, "comp_other");
    assigned = base;
    CPPUNIT_ASSERT_EQUAL(base.sql(), assigned.sql());
    CPPUNIT_ASSERT(assigned.dialect() == Dialect::SQLite);
    CPPUNIT_ASSERT(assigned.soleSet() != nullptr && assigned.soleSet() != base.soleSet());
    CPPUNIT_ASSERT_EQUAL(std::string("contact_tag_counts"), assigned.soleSet()->countsTable);

    const std::string sql = base.sql();
    WhereClause moved(std::move(base));
    CPPUNIT_ASSERT_EQUAL(sql, moved.sql());
    CPPUNIT_ASSERT(moved.narrowed());
    WhereClause target(Dialect::PostgreSQL, "comp_x");
    target = std::move(moved);
    CPPUNIT_ASSERT_EQUAL(std::string("+company_id = ?"), target.tenantCondition());
  }

  void testWhereClauseAccumulates() {
    WhereClause where(Dialect::SQLite, "comp_t");
    CPPUNIT_ASSERT_EQUAL(std::string("company_id = ?"), where.sql());
    CPPUNIT_ASSERT_EQUAL(std::string("[comp_t]"), show(where.params()));
    where.add("owner_id = ?", {"user_1"});
    where.add("archived = ?", {false});
    where.add("amount BETWEEN ? AND ?", {1, 10});
    where.add("deleted_at IS NULL");
    CPPUNIT_ASSERT_EQUAL(std::string("company_id = ? AND owner_id = ? AND archived = ? AND "
                                     "amount BETWEEN ? AND ? AND deleted_at IS NULL"),
                         where.sql());
    CPPUNIT_ASSERT_EQUAL(std::string("[comp_t, user_1, false, 1, 10]"), show(where.params()));
    CPPUNIT_ASSERT(!where.narrowed());
    CPPUNIT_ASSERT_EQUAL(std::string("comp_t"), where.tenant());
    CPPUNIT_ASSERT(where.dialect() == Dialect::SQLite);
  }

  void testNarrowingHidesTheTenantIndexOnSqliteOnly() {
    for (const Dialect dialect : {Dialect::SQLite, Dialect::PostgreSQL}) {
      WhereClause where(dialect, "comp_t");
      where.add("owner_id = ?", {"user_1"});
      where.addNarrowing("id IN (SELECT x FROM y WHERE z = ?)", {"v"});
      CPPUNIT_ASSERT(where.narrowed());
      const std::string tenant = dialect == Dialect::SQLite ? "+company_id = ?" : "company_id = ?";
      CPPUNIT_ASSERT_EQUAL(tenant + " AND owner_id = ? AND id IN (SELECT x FROM y WHERE z = ?)",
                           where.sql());
      CPPUNIT_ASSERT_EQUAL(std::string("[comp_t, user_1, v]"), show(where.params()));
    }
  }

  void testTextSearchOnPostgresqlIsLike() {
    // Every length: the trigram GIN index serves LIKE, the planner decides.
    // From three characters (a trigram to look up) the condition narrows:
    // selectPage then counts the matches in the page's statement.
    for (const std::string term : {"a", "ab", "Ada", "50%_off"}) {
      WhereClause where(Dialect::PostgreSQL, "comp_t");
      rapport::addTextSearch(where, "contacts_search", term);
      CPPUNIT_ASSERT_EQUAL(std::string("company_id = ? AND search_text LIKE lower(?) ESCAPE '\\'"),
                           where.sql());
      CPPUNIT_ASSERT_EQUAL("[comp_t, " + rapport::likeContains(term) + "]", show(where.params()));
      CPPUNIT_ASSERT_EQUAL(term.size() >= 3, where.narrowed());
    }
  }

  void testTextSearchOnSqliteUsesFts5FromThreeCharacters() {
    for (const std::string term : {"a", "ab", "\xC3\xA9\xC3\xA9"}) {  // "éé": 4 bytes, 2 characters
      WhereClause where(Dialect::SQLite, "comp_t");
      rapport::addTextSearch(where, "contacts_search", term);
      CPPUNIT_ASSERT_EQUAL(std::string("company_id = ? AND search_text LIKE lower(?) ESCAPE '\\'"),
                           where.sql());
      CPPUNIT_ASSERT_EQUAL("[comp_t, %" + term + "%]", show(where.params()));
      CPPUNIT_ASSERT(!where.narrowed());
    }
    for (const std::string term : {"ada", "say \"hi\"", "\xC3\xA9\xC3\xA9\xC3\xA9"}) {
      WhereClause where(Dialect::SQLite, "comp_t");
      rapport::addTextSearch(where, "crm_companies_search", term);
      CPPUNIT_ASSERT_EQUAL(std::string("+company_id = ? AND seq IN (SELECT rowid FROM "
                                       "crm_companies_search WHERE crm_companies_search MATCH ?)"),
                           where.sql());
      CPPUNIT_ASSERT_EQUAL("[comp_t, " + rapport::ftsPhrase(term) + "]", show(where.params()));
      CPPUNIT_ASSERT(where.narrowed());
    }
  }

  // addTextSearch with a database (search.h): the trigram counts it reads
  // (once per index and trigram: cached), the two rarest it asks the index
  // for, the term checked on their records; the whole term when even the
  // rarest is common, for a term of one trigram, and for a non-ASCII term.
  // Each case names its own index: the counts are cached process-wide.
  void testTextSearchAsksTheIndexForTheRarestTrigrams() {
    class CountingDb final : public rapport::Queryable {
     public:
      CountingDb(Dialect dialect, std::map<std::string, std::int64_t> counts)
          : dialect_(dialect), counts_(std::move(counts)) {}
      Dialect dialect() const override { return dialect_; }
      rapport::Result query(std::string_view sql, const Params& params) override {
        statements.emplace_back(std::string(sql), params);
        // The trigram inside its FTS5 string ("abc") or LIKE pattern (%abc%).
        const std::string pattern = params.front().asString();
        const auto found = counts_.find(pattern.substr(1, pattern.size() - 2));
        rapport::Result result;
        auto columns =
            std::make_shared<const std::vector<std::string>>(std::vector<std::string>{"n"});
        result.rows.emplace_back(
            columns, std::vector<Value>{Value(found == counts_.end() ? 0 : found->second)});
        return result;
      }
      std::int64_t exec(std::string_view, const Params&) override { return 0; }
      std::vector<std::pair<std::string, Params>> statements;

     private:
      Dialect dialect_;
      std::map<std::string, std::int64_t> counts_;
    };
    const std::map<std::string, std::int64_t> hartwell{
        {"har", 2502}, {"art", 2629}, {"rtw", 446}, {"twe", 307}, {"wel", 2502}, {"ell", 10000}};
    {
      CountingDb db(Dialect::SQLite, hartwell);
      WhereClause where(Dialect::SQLite, "comp_t");
      rapport::addTextSearch(db, where, "rare1", "rare1_search", "HartWell");
      CPPUNIT_ASSERT_EQUAL(std::size_t{6}, db.statements.size());
      CPPUNIT_ASSERT_EQUAL(std::string("SELECT COUNT(*) AS n FROM (SELECT 1 FROM rare1_search "
                                       "WHERE rare1_search MATCH ? LIMIT 10000)"),
                           db.statements.front().first);
      CPPUNIT_ASSERT_EQUAL(std::string("+company_id = ? AND seq IN (SELECT rowid FROM "
                                       "rare1_search WHERE rare1_search MATCH ?) AND "
                                       "instr(search_text, ?) > 0"),
                           where.sql());
      CPPUNIT_ASSERT_EQUAL(std::string("[comp_t, \"twe\" AND \"rtw\", hartwell]"),
                           show(where.params()));
      CPPUNIT_ASSERT(where.narrowed());
      // Counted once: the next search of the same trigrams reads none.
      WhereClause again(Dialect::SQLite, "comp_t");
      rapport::addTextSearch(db, again, "rare1", "rare1_search", "hartwell");
      CPPUNIT_ASSERT_EQUAL(std::size_t{6}, db.statements.size());
      CPPUNIT_ASSERT_EQUAL(where.sql(), again.sql());
    }
    {
      // PostgreSQL looks up trigrams of letters and digits only (pg_trgm
      // indexes words): "a.l", "da." and ".lo" are neither counted nor asked.
      CountingDb db(Dialect::PostgreSQL, {{"ada", 40},
                                          {"lov", 12},
                                          {"ove", 900},
                                          {"vel", 800},
                                          {"ela", 700},
                                          {"lac", 600},
                                          {"ace", 500}});
      WhereClause where(Dialect::PostgreSQL, "comp_t");
      rapport::addTextSearch(db, where, "rare2", "rare2_search", "Ada.Lovelace");
      CPPUNIT_ASSERT_EQUAL(std::size_t{7}, db.statements.size());
      CPPUNIT_ASSERT_EQUAL(std::string("SELECT COUNT(*) AS n FROM (SELECT 1 FROM rare2 WHERE "
                                       "search_text LIKE ? ESCAPE '\\' LIMIT 10000) AS matches"),
                           db.statements.front().first);
      for (const auto& [sql, params] : db.statements) {
        const std::string pattern = params.front().asString();
        CPPUNIT_ASSERT_MESSAGE(pattern, pattern.find('.') == std::string::npos);
      }
      CPPUNIT_ASSERT_EQUAL(std::string("company_id = ? AND search_text LIKE ? ESCAPE '\\' AND "
                                       "search_text LIKE ? ESCAPE '\\' AND "
                                       "(search_text || '') LIKE lower(?) ESCAPE '\\'"),
                           where.sql());
      CPPUNIT_ASSERT_EQUAL(std::string("[comp_t, %lov%, %ada%, %Ada.Lovelace%]"),
                           show(where.params()));
      CPPUNIT_ASSERT(where.narrowed());
    }
    {
      // Every trigram common: the whole term, as without a database.
      CountingDb db(Dialect::SQLite, {{"mai", 10000}, {"ail", 10000}});
      WhereClause where(Dialect::SQLite, "comp_t");
      rapport::addTextSearch(db, where, "rare3", "rare3_search", "mail");
      WhereClause plain(Dialect::SQLite, "comp_t");
      rapport::addTextSearch(plain, "rare3_search", "mail");
      CPPUNIT_ASSERT_EQUAL(plain.sql(), where.sql());
      CPPUNIT_ASSERT_EQUAL(show(plain.params()), show(where.params()));
      CPPUNIT_ASSERT_EQUAL(std::size_t{2}, db.statements.size());
    }
    {
      // A long term: 12 of its trigrams counted, not one per character.
      std::string term;
      for (int i = 0; term.size() < 250; ++i) term += "w" + std::to_string(1000 + i);
      CountingDb db(Dialect::PostgreSQL, {});
      WhereClause where(Dialect::PostgreSQL, "comp_t");
      rapport::addTextSearch(db, where, "rare5", "rare5_search", term);
      CPPUNIT_ASSERT_EQUAL(std::size_t{12}, db.statements.size());
      CPPUNIT_ASSERT(where.sql().find("(search_text || '')") != std::string::npos);
    }
    for (const Dialect dialect : {Dialect::SQLite, Dialect::PostgreSQL}) {
      // One trigram, a non-ASCII term, a term of no word trigram on
      // PostgreSQL ("a.b.c"): the whole term.
      for (const std::string term : {"ada", "\xC3\xA9t\xC3\xA9s", "a.b.c", "ab"}) {
        CountingDb db(dialect, {});
        WhereClause where(dialect, "comp_t");
        rapport::addTextSearch(db, where, "rare4", "rare4_search", term);
        WhereClause plain(dialect, "comp_t");
        rapport::addTextSearch(plain, "rare4_search", term);
        if (term == "a.b.c" && dialect == Dialect::SQLite) {
          CPPUNIT_ASSERT(where.sql().find("instr(") != std::string::npos);  // SQLite: any
          continue;
        }
        CPPUNIT_ASSERT_EQUAL_MESSAGE(term, plain.sql(), where.sql());
        CPPUNIT_ASSERT_EQUAL(show(plain.params()), show(where.params()));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(term, std::size_t{0}, db.statements.size());
      }
    }
  }

  void testTagFilter() {
    const rapport::TagTable tags{"contact_tags", "contact_id", "contacts", "contact_tag_counts"};
    for (const Dialect dialect : {Dialect::SQLite, Dialect::PostgreSQL}) {
      WhereClause where(dialect, "comp_t");
      rapport::addTagFilter(where, tags, "VIP Lead");
      const std::string tenant = dialect == Dialect::SQLite ? "+company_id = ?" : "company_id = ?";
      CPPUNIT_ASSERT_EQUAL(tenant +
                               " AND id IN (SELECT contact_id FROM contact_tags WHERE "
                               "company_id = ? AND tag_lower = ?)",
                           where.sql());
      CPPUNIT_ASSERT_EQUAL(std::string("[comp_t, comp_t, vip lead]"), show(where.params()));
      CPPUNIT_ASSERT(where.narrowed());
      CPPUNIT_ASSERT(where.soleSet() != nullptr);
      CPPUNIT_ASSERT_EQUAL(std::string("contact_tags"), where.soleSet()->table);
    }
  }

  void testSetMembershipIsSoleOnlyAlone() {
    const rapport::TagTable tags{"contact_tags", "contact_id", "contacts", "contact_tag_counts"};
    WhereClause before(Dialect::SQLite, "comp_t");
    before.add("owner_id = ?", {"user_1"});
    rapport::addTagFilter(before, tags, "vip");
    CPPUNIT_ASSERT(before.soleSet() == nullptr);
    WhereClause after(Dialect::SQLite, "comp_t");
    rapport::addTagFilter(after, tags, "vip");
    after.add("owner_id = ?", {"user_1"});
    CPPUNIT_ASSERT(after.soleSet() == nullptr);
    CPPUNIT_ASSERT(WhereClause(Dialect::SQLite, "comp_t").soleSet() == nullptr);
  }

  // A lone tag filter in the default order: the page's ids come from the tag
  // table's (company_id, tag_lower, created_at, id) index, the total from
  // the tag counts table.
  void testSelectPageOfALoneTagFilter() {
    const rapport::TagTable tags{"contact_tags", "contact_id", "contacts", "contact_tag_counts"};
    for (const Dialect dialect : {Dialect::SQLite, Dialect::PostgreSQL}) {
      RecordingTx db;
      WhereClause where(dialect, "comp_t");
      rapport::addTagFilter(where, tags, "VIP");
      const rapport::ListPage page = rapport::selectPage(
          db, "id, name", "contacts", where, {.column = "created_at", .descending = true},
          {.page = 2, .perPage = 20}, "contact_counts");
      CPPUNIT_ASSERT_EQUAL(std::int64_t{42}, page.total);
      CPPUNIT_ASSERT_EQUAL(std::size_t{2}, db.statements.size());
      const std::string tenant = dialect == Dialect::SQLite ? "+company_id" : "company_id";
      CPPUNIT_ASSERT_EQUAL(
          "SELECT id, name FROM contacts WHERE " + tenant +
              " = ? AND id IN (SELECT contact_id FROM contact_tags WHERE company_id = ? AND "
              "tag_lower = ? ORDER BY created_at DESC, contact_id DESC LIMIT ? OFFSET ?) "
              "ORDER BY created_at DESC, id DESC",
          db.statements[0].first);
      CPPUNIT_ASSERT_EQUAL(std::string("[comp_t, comp_t, vip, 20, 20]"),
                           show(db.statements[0].second));
      CPPUNIT_ASSERT_EQUAL(
          std::string("SELECT CAST(COALESCE(SUM(total), 0) AS BIGINT) AS total FROM "
                      "contact_tag_counts WHERE company_id = ? AND tag_lower = ?"),
          db.statements[1].first);
      CPPUNIT_ASSERT_EQUAL(std::string("[comp_t, vip]"), show(db.statements[1].second));
    }
    // Another order still reads the total from the counts, and pages the records.
    RecordingTx db;
    WhereClause where(Dialect::PostgreSQL, "comp_t");
    rapport::addTagFilter(where, tags, "vip");
    rapport::selectPage(db, "id", "contacts", where, {.column = "lower(name)", .descending = false},
                        {.page = 1, .perPage = 5});
    CPPUNIT_ASSERT_EQUAL(
        std::string("SELECT id FROM contacts WHERE company_id = ? AND id IN (SELECT contact_id "
                    "FROM contact_tags WHERE company_id = ? AND tag_lower = ?) "
                    "ORDER BY lower(name) ASC, id ASC LIMIT ? OFFSET ?"),
        db.statements[0].first);
    CPPUNIT_ASSERT_EQUAL(
        std::string(
            "SELECT CAST(COALESCE(SUM(total), 0) AS BIGINT) AS total FROM contact_tag_counts "
            "WHERE company_id = ? AND tag_lower = ?"),
        db.statements[1].first);
    // A set without a counts table counts its own rows on the index.
    RecordingTx plain;
    WhereClause set(Dialect::SQLite, "comp_t");
    set.addSetMembership({.table = "deal_labels",
                          .recordColumn = "deal_id",
                          .key = "label = ?",
                          .keyValues = {Value("hot")},
                          .countsTable = {}});
    rapport::selectPage(plain, "id", "deals", set, {.column = "created_at", .descending = false},
                        {.page = 1, .perPage = 5});
    CPPUNIT_ASSERT_EQUAL(
        std::string("SELECT COUNT(*) AS total FROM deal_labels WHERE company_id = ? AND label = ?"),
        plain.statements[1].first);
    CPPUNIT_ASSERT_EQUAL(std::string("[comp_t, hot]"), show(plain.statements[1].second));
  }

  void testSelectPage() {
    RecordingTx db;
    WhereClause where(Dialect::SQLite, "comp_t");
    where.add("owner_id = ?", {"user_1"});
    const rapport::ListPage page = rapport::selectPage(
        db, "id, name", "contacts", where, {.column = "lower(name)", .descending = false},
        {.page = 3, .perPage = 10});
    CPPUNIT_ASSERT_EQUAL(std::int64_t{42}, page.total);
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, db.statements.size());
    CPPUNIT_ASSERT_EQUAL(
        std::string("SELECT id, name FROM contacts WHERE company_id = ? AND "
                    "owner_id = ? ORDER BY lower(name) ASC, id ASC LIMIT ? OFFSET ?"),
        db.statements[0].first);
    CPPUNIT_ASSERT_EQUAL(std::string("[comp_t, user_1, 10, 20]"), show(db.statements[0].second));
    CPPUNIT_ASSERT_EQUAL(
        std::string("SELECT COUNT(*) AS total FROM contacts WHERE company_id = ? AND owner_id = ?"),
        db.statements[1].first);
    CPPUNIT_ASSERT_EQUAL(std::string("[comp_t, user_1]"), show(db.statements[1].second));

    // Unfiltered, with a counts table: the sum of the tenant's slots.
    RecordingTx counted;
    rapport::selectPage(counted, "id", "contacts", WhereClause(Dialect::PostgreSQL, "comp_t"),
                        {.column = "created_at", .descending = true}, {.page = 1, .perPage = 20},
                        "contact_counts");
    CPPUNIT_ASSERT_EQUAL(std::string("SELECT CAST(COALESCE(SUM(total), 0) AS BIGINT) AS total FROM "
                                     "contact_counts WHERE company_id = ?"),
                         counted.statements[1].first);
    CPPUNIT_ASSERT_EQUAL(std::string("[comp_t]"), show(counted.statements[1].second));
  }

  // A narrowed list (here a search on SQLite) reads its page and its total in
  // one statement (COUNT(*) OVER ()); the total's column is not in the rows.
  // An empty page past the first counts on its own; an empty first page is 0.
  void testSelectPageCountsANarrowedListInThePage() {
    class PageTx final : public rapport::Queryable {
     public:
      explicit PageTx(std::size_t rows) : rows_(rows) {}
      Dialect dialect() const override { return Dialect::SQLite; }
      rapport::Result query(std::string_view sql, const Params& params) override {
        statements.emplace_back(std::string(sql), params);
        rapport::Result result;
        if (sql.find("COUNT(*) OVER ()") == std::string_view::npos) {
          auto columns =
              std::make_shared<const std::vector<std::string>>(std::vector<std::string>{"total"});
          result.rows.emplace_back(columns, std::vector<Value>{Value(7)});
          return result;
        }
        auto columns = std::make_shared<const std::vector<std::string>>(
            std::vector<std::string>{"id", "name", "rapport_list_total"});
        for (std::size_t i = 0; i < rows_; ++i) {
          result.rows.emplace_back(columns, std::vector<Value>{Value("cont_" + std::to_string(i)),
                                                               Value("N"), Value(61)});
        }
        return result;
      }
      std::int64_t exec(std::string_view, const Params&) override { return 0; }
      std::vector<std::pair<std::string, Params>> statements;

     private:
      std::size_t rows_;
    };
    WhereClause where(Dialect::SQLite, "comp_t");
    rapport::addTextSearch(where, "contacts_search", "hartwell");
    const rapport::Sort sort{.column = "created_at", .descending = true};

    PageTx full(20);
    const rapport::ListPage page =
        rapport::selectPage(full, "id, name", "contacts", where, sort, {.page = 2, .perPage = 20});
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, full.statements.size());
    CPPUNIT_ASSERT_EQUAL(
        std::string("SELECT id, name, page.rapport_list_total FROM (SELECT rowid AS "
                    "rapport_page_row, COUNT(*) OVER () AS rapport_list_total FROM contacts WHERE "
                    "+company_id = ? AND seq IN (SELECT rowid FROM contacts_search WHERE "
                    "contacts_search MATCH ?) ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?) "
                    "AS page JOIN contacts ON contacts.rowid = page.rapport_page_row ORDER BY "
                    "created_at DESC, id DESC"),
        full.statements[0].first);
    CPPUNIT_ASSERT_EQUAL(std::string("[comp_t, \"hartwell\", 20, 20]"),
                         show(full.statements[0].second));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{61}, page.total);
    CPPUNIT_ASSERT_EQUAL(std::size_t{20}, page.rows.size());
    for (const rapport::Row& row : page.rows) {
      CPPUNIT_ASSERT_EQUAL(std::size_t{2}, row.size());
      CPPUNIT_ASSERT(row.columnNames()->back() == "name");
      CPPUNIT_ASSERT_THROW(row["rapport_list_total"], std::logic_error);
    }
    CPPUNIT_ASSERT_EQUAL(std::string("cont_19"), page.rows.rows.back().str("id"));

    PageTx pastTheEnd(0);
    const rapport::ListPage empty = rapport::selectPage(pastTheEnd, "id, name", "contacts", where,
                                                        sort, {.page = 9, .perPage = 20});
    CPPUNIT_ASSERT(empty.rows.empty());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{7}, empty.total);
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, pastTheEnd.statements.size());
    CPPUNIT_ASSERT_EQUAL(std::string("SELECT COUNT(*) AS total FROM contacts WHERE +company_id = ? "
                                     "AND seq IN (SELECT rowid FROM contacts_search WHERE "
                                     "contacts_search MATCH ?)"),
                         pastTheEnd.statements[1].first);

    PageTx none(0);
    const rapport::ListPage nothing =
        rapport::selectPage(none, "id, name", "contacts", where, sort, {.page = 1, .perPage = 20});
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, nothing.total);
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, none.statements.size());
  }

  void testTagsJsonRoundTrip() {
    CPPUNIT_ASSERT_EQUAL(std::string("[]"), rapport::tagsToJsonText({}));
    const std::vector<std::string> tags{"VIP", "lead \"hot\"", "caf\xC3\xA9", "a\\b"};
    const std::string text = rapport::tagsToJsonText(tags);
    CPPUNIT_ASSERT_EQUAL(std::string("[\"VIP\",\"lead \\\"hot\\\"\",\"caf\xC3\xA9\",\"a\\\\b\"]"),
                         text);
    CPPUNIT_ASSERT(tags == rapport::tagsFromJsonText(text));
    CPPUNIT_ASSERT(rapport::tagsFromJsonText("[]").empty());
    CPPUNIT_ASSERT_THROW(rapport::tagsFromJsonText("{}"), std::logic_error);
    CPPUNIT_ASSERT_THROW(rapport::tagsFromJsonText("[1]"), std::logic_error);
    CPPUNIT_ASSERT_THROW(rapport::tagsFromJsonText("[\"a\""), rapport::JsonParseError);
  }

  void testReplaceAndDeleteTagRows() {
    const rapport::TagTable tags{"crm_company_tags", "crm_company_id", "crm_companies",
                                 "crm_company_tag_counts"};
    RecordingTx tx;
    rapport::replaceTagRows(tx, tags, "comp_r", {"VIP", "Lead"});
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, tx.statements.size());
    const std::string del =
        "DELETE FROM crm_company_tags WHERE crm_company_id = ? AND +company_id = ?";
    // Every tag in one statement (one round trip), in sorted order, so
    // concurrent writers lock the tags' count rows in one order.
    const std::string ins =
        "INSERT INTO crm_company_tags (company_id, crm_company_id, tag_lower, created_at) "
        "SELECT r.company_id, r.id, t.tag, r.created_at FROM crm_companies r, "
        "(SELECT ? AS tag UNION ALL SELECT ?) t WHERE r.company_id = ? AND r.id = ? "
        "ORDER BY t.tag";
    CPPUNIT_ASSERT_EQUAL(del, tx.statements[0].first);
    CPPUNIT_ASSERT_EQUAL(std::string("[comp_r, comp_t]"), show(tx.statements[0].second));
    CPPUNIT_ASSERT_EQUAL(ins, tx.statements[1].first);
    CPPUNIT_ASSERT_EQUAL(std::string("[lead, vip, comp_t, comp_r]"), show(tx.statements[1].second));

    RecordingTx cleared;
    rapport::replaceTagRows(cleared, tags, "comp_r", {});
    rapport::deleteTagRows(cleared, tags, "comp_s");
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, cleared.statements.size());
    CPPUNIT_ASSERT_EQUAL(del, cleared.statements[1].first);
    CPPUNIT_ASSERT_EQUAL(std::string("[comp_s, comp_t]"), show(cleared.statements[1].second));

    // PostgreSQL too keeps the tenant from choosing the index (its generic
    // plan, without statistics, walked the tenant's tag rows).
    RecordingTx onPostgres(Dialect::PostgreSQL);
    rapport::deleteTagRows(onPostgres, tags, "comp_s");
    CPPUNIT_ASSERT_EQUAL(std::string("DELETE FROM crm_company_tags WHERE crm_company_id = ? AND "
                                     "company_id || '' = ?"),
                         onPostgres.statements[0].first);
  }

  void testFilterParam() {
    const rapport::Request request =
        requestWithQuery({{"tag", "  VIP "}, {"blank", " \t "}, {"empty", ""}});
    CPPUNIT_ASSERT_EQUAL(std::string("VIP"), *rapport::filterParam(request, "tag"));
    CPPUNIT_ASSERT(!rapport::filterParam(request, "blank"));
    CPPUNIT_ASSERT(!rapport::filterParam(request, "empty"));
    CPPUNIT_ASSERT(!rapport::filterParam(request, "missing"));
  }

  void testSearchParam() {
    rapport::FieldErrors errors;
    const std::string longest(rapport::kMaxSearchLength, 'x');
    CPPUNIT_ASSERT_EQUAL(longest,
                         *rapport::searchParam(requestWithQuery({{"search", longest}}), errors));
    CPPUNIT_ASSERT_EQUAL(std::string("ada"),
                         *rapport::searchParam(requestWithQuery({{"search", " ada "}}), errors));
    CPPUNIT_ASSERT(!rapport::searchParam(requestWithQuery({{"search", "  "}}), errors));
    CPPUNIT_ASSERT(errors.empty());
    // 255 characters of two bytes each are fine; one more is not.
    std::string accented;
    for (std::size_t i = 0; i < rapport::kMaxSearchLength; ++i) accented += "\xC3\xA9";
    rapport::searchParam(requestWithQuery({{"search", accented}}), errors);
    CPPUNIT_ASSERT(errors.empty());
    rapport::searchParam(requestWithQuery({{"search", accented + "e"}}), errors);
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, errors.size());
    CPPUNIT_ASSERT(errors["search"] ==
                   std::vector<std::string>{"The search may not be greater than 255 characters."});
  }

  void testOptionalText() {
    const Json body = Json::parse(
        R"({"phone": " 555 ", "blank": "   ", "empty": "", "null": null, "long": "abcdef"})");
    rapport::Validator v(body);
    CPPUNIT_ASSERT_EQUAL(std::string("555"), *rapport::optionalText(v, "phone", 50).value);
    for (const char* field : {"blank", "empty", "null"}) {
      const auto read = rapport::optionalText(v, field, 50);
      CPPUNIT_ASSERT_MESSAGE(field, read.present && read.isNull());
    }
    const auto absent = rapport::optionalText(v, "missing", 50);
    CPPUNIT_ASSERT(!absent.present && !absent.value);
    CPPUNIT_ASSERT(v.ok());
    CPPUNIT_ASSERT(!rapport::optionalText(v, "long", 5).value);
    CPPUNIT_ASSERT(v.errors().at("long") ==
                   std::vector<std::string>{"The long may not be greater than 5 characters."});
  }

  void testConflictOnDuplicate() {
    using rapport::DbError;
    bool ran = false;
    rapport::conflictOnDuplicate("Taken.", [&] { ran = true; });
    CPPUNIT_ASSERT(ran);
    try {
      rapport::conflictOnDuplicate("A contact with this email already exists.", [] {
        throw DbError(DbError::Kind::UniqueViolation, "duplicate key value");
      });
      CPPUNIT_FAIL("no conflict");
    } catch (const Error& e) {
      CPPUNIT_ASSERT_EQUAL(409, e.status());
      CPPUNIT_ASSERT_EQUAL(std::string("A contact with this email already exists."),
                           std::string(e.what()));
    }
    CPPUNIT_ASSERT_THROW(
        rapport::conflictOnDuplicate(
            "Taken.", [] { throw DbError(DbError::Kind::Busy, "database is locked"); }),
        DbError);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(QueryTest);
