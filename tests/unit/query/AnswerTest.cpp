// RecordQuery::answer in cursor form (rapport/record_query.h, decisions
// §13) over a fake host: no storage, a database that records each statement
// and answers canned rows, a directory that lends companies and contacts,
// and a SecretBox that seals in the clear (hex). What it checks is the
// engine's own: `fields` and `include` checked against the declaration
// (422), the keyset page's SQL and bound values, and cursors bound to their
// list (tenant, record type, filter, sort): a malformed one, or one made for
// another list or another company, is a 422 on `cursor`.
#include <cppunit/extensions/HelperMacros.h>

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "QueryTestSupport.h"
#include "rapport/module.h"
#include "rapport/records.h"
#include "rapport/secrets.h"

using rapport::Dialect;
using rapport::Json;
using rapport::ListRequest;
using rapport::Params;
using rapport::RecordQuery;
using rapport::Response;
using rapport::Row;
using rapport::Value;
using rapport::WhereClause;
using namespace rapport::test::query;

namespace {

// Seals as "rk1:" + hex(context, 0x1F, plaintext): what the engine does
// with a sealed text (URL-safe form, context, refusal of what does not
// open) without the host's cipher.
class ClearBox final : public rapport::SecretBox {
 public:
  std::string seal(std::string_view plaintext, std::string_view context) const override {
    static const char* digits = "0123456789abcdef";
    std::string in = std::string(context) + '\x1f' + std::string(plaintext);
    std::string out = "rk1:";
    for (const unsigned char c : in) {
      out += digits[c >> 4];
      out += digits[c & 15];
    }
    return out;
  }

  std::string open(std::string_view sealed, std::string_view context) const override {
    if (!sealed.starts_with("rk1:")) throw std::runtime_error("not sealed");
    std::string hex(sealed.substr(4));
    while (!hex.empty() && hex.back() == '=') hex.pop_back();
    if (hex.size() % 2 != 0) throw std::runtime_error("not sealed");
    std::string text;
    for (std::size_t i = 0; i < hex.size(); i += 2) {
      const auto nibble = [](char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        throw std::runtime_error("not sealed");
      };
      text += static_cast<char>(nibble(hex[i]) * 16 + nibble(hex[i + 1]));
    }
    const std::size_t split = text.find('\x1f');
    if (split == std::string::npos || text.substr(0, split) != context) {
      throw std::runtime_error("another context");
    }
    return text.substr(split + 1);
  }
};

struct Statement {
  std::string sql;
  Params params;
};

// Records each statement; a page's SELECT answers `rows` rows whose id and
// first sort key count down from `start`.
class CannedDatabase final : public rapport::Database {
 public:
  explicit CannedDatabase(Dialect dialect) : dialect_(dialect) {}

  int rows = 0;
  int start = 100;
  std::int64_t matches = 0;  // what a density probe counts
  std::vector<Statement> statements;

  Dialect dialect() const override { return dialect_; }

  rapport::Result query(std::string_view sql, const Params& params) override {
    statements.push_back({std::string(sql), params});
    rapport::Result result;
    if (std::string(sql).starts_with("SELECT COUNT(*) AS n FROM (")) {
      auto n = std::make_shared<const std::vector<std::string>>(std::vector<std::string>{"n"});
      result.rows.emplace_back(n, std::vector<Value>{Value(static_cast<long long>(matches))});
      return result;
    }
    if (std::string(sql).starts_with("SELECT COUNT(*) AS total")) {
      auto total =
          std::make_shared<const std::vector<std::string>>(std::vector<std::string>{"total"});
      result.rows.emplace_back(total, std::vector<Value>{Value(7)});
      return result;
    }
    if (!has(std::string(sql), "rapport_key_0")) return result;
    auto columns = std::make_shared<const std::vector<std::string>>(
        std::vector<std::string>{"id", "rapport_key_0"});
    for (int i = 0; i < rows; ++i) {
      const int n = start - i;
      result.rows.emplace_back(columns, std::vector<Value>{Value("deal_" + std::to_string(n)),
                                                           Value(static_cast<long long>(n * 10))});
    }
    return result;
  }

  std::int64_t exec(std::string_view, const Params&) override {
    throw std::logic_error("unit.query writes nothing");
  }

  void transaction(const std::string&, const std::function<void(rapport::Tx&)>&) override {
    throw std::logic_error("unit.query writes nothing");
  }

  // The engine's list statements come here (the deadline is the host's).
  rapport::Result queryBounded(std::string_view sql, const Params& params) override {
    return query(sql, params);
  }

 private:
  Dialect dialect_;
};

// Companies and contacts lend their query language; a fetched record says
// which company it was asked for.
class Directory final : public rapport::RecordDirectory {
 public:
  bool knows(const std::string& type) const override { return lookup(type) != nullptr; }
  bool exists(rapport::Queryable&, const std::string&, const std::string&,
              const std::string&) const override {
    return false;
  }
  bool lockForReference(rapport::Tx&, const std::string&, const std::string&) const override {
    return false;
  }
  std::optional<Json> fetch(rapport::Queryable&, const std::string& companyId,
                            const std::string& type, const std::string& id,
                            rapport::RecordLock) const override {
    return Json::object({{"id", id}, {"type", type}, {"asked_for", companyId}});
  }
  const RecordQuery* query(const std::string& type) const override { return lookup(type); }
  void augment(rapport::Queryable&, const std::string&, const std::string&,
               Json::Array&) const override {}
  void deleted(rapport::Tx&, const std::string&, const std::string&) const override {}
  std::string scope(const std::string& type) const override { return type + "s"; }
};

class FakeHost final : public rapport::Host {
 public:
  explicit FakeHost(Dialect dialect) : database(dialect) {}

  CannedDatabase database;
  Directory directory;
  ClearBox box;

  rapport::Database& db() override { return database; }
  const rapport::RecordDirectory& records() override { return directory; }
  const rapport::Config& config() override { throw std::logic_error("unused"); }
  rapport::Logger& log() override { throw std::logic_error("unused"); }
  bool moduleEnabled(const std::string&) const override { return false; }
  const rapport::EventCatalogue& events() const override { throw std::logic_error("unused"); }
  const rapport::SecretBox& secrets() const override { return box; }
  const rapport::EventLog& eventLog() const override { throw std::logic_error("unused"); }
  void notifyOwners(const std::string&, const std::string&, const std::string&) override {}
};

// A deal as its module would show it: deal_99 has no company.
Json recordJson(const Row& row) {
  const std::string id = row.str("id");
  return Json::object({{"id", id},
                       {"title", "Deal " + id},
                       {"value", row["rapport_key_0"].asInt()},
                       {"company_id", id == "deal_99" ? Json() : Json("cmp_1")}});
}

ListRequest cursorList(const std::string& filter, std::vector<std::string> sort,
                       std::string cursor = "") {
  ListRequest list;
  list.filter = filter.empty() ? Json() : Json::parse(filter);
  list.sort = std::move(sort);
  list.cursorMode = true;
  list.limit = 2;
  list.cursor = std::move(cursor);
  return list;
}

Response answered(FakeHost& host, const RecordQuery& query, const ListRequest& list,
                  const std::string& tenant = kTenant) {
  return query.answer(host, list, WhereClause(host.database.dialect(), tenant), "id, value",
                      recordJson);
}

// The 422 errors of answering `list`; {} when it answered.
rapport::FieldErrors answerErrors(FakeHost& host, const RecordQuery& query, const ListRequest& list,
                                  const std::string& tenant = kTenant) {
  try {
    answered(host, query, list, tenant);
    return {};
  } catch (const rapport::Error& error) {
    CPPUNIT_ASSERT_EQUAL(422, error.status());
    return error.errors();
  }
}

bool bindsOpen(const Statement& statement) {
  for (const Value& value : statement.params) {
    if (std::holds_alternative<std::string>(value.variant()) && value.asString() == "open") {
      return true;
    }
  }
  return false;
}

void assertStatementBound(const Statement& statement) {
  CPPUNIT_ASSERT_EQUAL_MESSAGE(statement.sql, statement.params.size(), placeholders(statement.sql));
}

}  // namespace

class AnswerTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(AnswerTest);
  CPPUNIT_TEST(testUnknownFieldsAndIncludesAreRefused);
  CPPUNIT_TEST(testKeysetPagesBindEverything);
  CPPUNIT_TEST(testLastPageHasNoCursor);
  CPPUNIT_TEST(testDenseRangesWalkTheOrderOnSqlite);
  CPPUNIT_TEST(testMalformedCursorsAreRefused);
  CPPUNIT_TEST(testCursorServesOnlyItsOwnList);
  CPPUNIT_TEST(testNumberedPagesKeepTheirMeta);
  CPPUNIT_TEST(testCountAddsTheTotalOfTheSameClause);
  CPPUNIT_TEST(testOnlyListsOfOnePlanWriteTheirLimit);
  CPPUNIT_TEST(testFieldsKeepOnlyThoseAndId);
  CPPUNIT_TEST(testIncludeEmbedsFromTheListsCompany);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testUnknownFieldsAndIncludesAreRefused() {
    FakeHost host(Dialect::SQLite);
    ListRequest list = cursorList("", {});
    list.fields = {"title", "nope"};
    CPPUNIT_ASSERT(answerErrors(host, deals(), list).contains("fields"));
    list.fields = {"crm_company_id"};
    CPPUNIT_ASSERT(answerErrors(host, deals(), list).contains("fields"));
    list.fields = {"title", ""};  // fields=title,
    CPPUNIT_ASSERT(answerErrors(host, deals(), list).contains("fields"));
    list.fields = {};
    for (const char* include : {"owner", "company_id", "nope", ""}) {
      list.include = {include};
      CPPUNIT_ASSERT_MESSAGE(include, answerErrors(host, deals(), list).contains("include"));
    }
    list.include = {"contact"};
    CPPUNIT_ASSERT(answerErrors(host, contacts(), list).contains("include"));
    // Nothing ran: the parameters are checked before any work.
    CPPUNIT_ASSERT(host.database.statements.empty());

    // The declared ones, and id, created_at, updated_at, which the engine adds.
    list.include = {"company", "contact"};
    list.fields = {"id", "title", "created_at", "updated_at", "tags"};
    CPPUNIT_ASSERT(answerErrors(host, deals(), list).empty());
  }

  void testKeysetPagesBindEverything() {
    for (const Dialect dialect : kDialects) {
      FakeHost host(dialect);
      host.database.rows = 3;  // limit 2, one more: there is a next page
      const Response first =
          answered(host, deals(), cursorList(R"({"status":{"in":["open","won"]}})", {"-value"}));
      CPPUNIT_ASSERT_EQUAL(std::size_t{1}, host.database.statements.size());
      const Statement& page1 = host.database.statements.back();
      assertStatementBound(page1);
      CPPUNIT_ASSERT_EQUAL(kTenant, page1.params.front().asString());
      CPPUNIT_ASSERT_EQUAL(std::int64_t{3}, page1.params.back().asInt());  // LIMIT limit + 1
      CPPUNIT_ASSERT_EQUAL(std::size_t{2}, first.data->size());
      const Json& next = (*first.meta)["next_cursor"];
      CPPUNIT_ASSERT(next.isString() && !next.asString().empty());
      CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, (*first.meta)["per_page"].asInt());
      CPPUNIT_ASSERT(!first.meta->contains("total"));

      host.database.start = 98;
      answered(host, deals(),
               cursorList(R"({"status":{"in":["open","won"]}})", {"-value"}, next.asString()));
      const Statement& page2 = host.database.statements.back();
      assertStatementBound(page2);
      CPPUNIT_ASSERT_EQUAL(kTenant, page2.params.front().asString());
      // After the second row of the first page: value 990, id deal_99.
      bool value = false, id = false;
      for (const Value& bound : page2.params) {
        value = value ||
                (std::holds_alternative<std::int64_t>(bound.variant()) && bound.asInt() == 990);
        id = id || (std::holds_alternative<std::string>(bound.variant()) &&
                    bound.asString() == "deal_99");
      }
      CPPUNIT_ASSERT_MESSAGE(page2.sql, value && id);
      CPPUNIT_ASSERT_MESSAGE(page2.sql, !has(page2.sql, "deal_99") && !has(page2.sql, "990"));
    }
  }

  // SQLite sorts every match of a range it reads through the range's index:
  // a dense range (kDenseRange matches or more, probed through that index)
  // is written "+value" so the page walks the order's index instead. A
  // sparse one, a range on the sort's own column, and PostgreSQL keep it.
  // The cursor is the list's either way.
  void testDenseRangesWalkTheOrderOnSqlite() {
    const std::string range = R"({"value":{"gte":1000,"lt":2000}})";
    for (const Dialect dialect : kDialects) {
      for (const std::int64_t matches : {std::int64_t{10}, std::int64_t{5000}}) {
        FakeHost host(dialect);
        host.database.rows = 3;
        host.database.matches = matches;
        const Response first = answered(host, deals(), cursorList(range, {}));
        const Statement& page = host.database.statements.back();
        assertStatementBound(page);
        const bool walks = dialect == Dialect::SQLite && matches >= 2000;
        CPPUNIT_ASSERT_EQUAL_MESSAGE(page.sql, walks, has(page.sql, "+value >= ?"));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(page.sql, walks, has(page.sql, "+value < ?"));
        // Whichever plan served a page, the next one takes its cursor.
        host.database.matches = matches >= 2000 ? 10 : 5000;
        CPPUNIT_ASSERT(answerErrors(host, deals(),
                                    cursorList(range, {}, (*first.meta)["next_cursor"].asString()))
                           .empty());
      }
      // Sorted by the range's own column: its index serves both.
      FakeHost host(dialect);
      host.database.rows = 3;
      host.database.matches = 5000;
      answered(host, deals(), cursorList(range, {"-value"}));
      CPPUNIT_ASSERT(!has(host.database.statements.back().sql, "+value"));
      // A column sorted by another expression (probability, nullable: a
      // coalesce) has no index of its own by convention: no probe, no walk.
      const std::size_t before = host.database.statements.size();
      answered(host, deals(), cursorList(R"({"probability":{"gte":50}})", {}));
      CPPUNIT_ASSERT_EQUAL(before + 1, host.database.statements.size());
      CPPUNIT_ASSERT(!has(host.database.statements.back().sql, "+probability"));
    }
  }

  void testLastPageHasNoCursor() {
    FakeHost host(Dialect::PostgreSQL);
    host.database.rows = 2;
    const Response last = answered(host, deals(), cursorList("", {"title"}));
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, last.data->size());
    CPPUNIT_ASSERT((*last.meta)["next_cursor"].isNull());
    CPPUNIT_ASSERT(last.meta->contains("next_cursor"));
  }

  void testMalformedCursorsAreRefused() {
    FakeHost host(Dialect::SQLite);
    for (const char* cursor : {"!!!", "abc", "rk1:00", "a b", "%2F", "0000", "deal_1"}) {
      CPPUNIT_ASSERT_MESSAGE(
          cursor, answerErrors(host, deals(), cursorList("", {}, cursor)).contains("cursor"));
    }
    // Sealed, but not a cursor: the right context, another payload.
    std::string sealed = host.box.seal(R"({"s":"x","k":[],"i":"deal_1"})", "rapport.cursor");
    CPPUNIT_ASSERT(
        answerErrors(host, deals(), cursorList("", {}, sealed.substr(4))).contains("cursor"));
    sealed = host.box.seal("not json", "rapport.cursor");
    CPPUNIT_ASSERT(
        answerErrors(host, deals(), cursorList("", {}, sealed.substr(4))).contains("cursor"));
  }

  void testCursorServesOnlyItsOwnList() {
    for (const Dialect dialect : kDialects) {
      FakeHost host(dialect);
      host.database.rows = 3;
      const std::string filter = R"({"status":"open"})";
      const Response first = answered(host, deals(), cursorList(filter, {"-value"}));
      const std::string cursor = (*first.meta)["next_cursor"].asString();

      // The same list takes it.
      CPPUNIT_ASSERT(answerErrors(host, deals(), cursorList(filter, {"-value"}, cursor)).empty());
      // Another company's list of the same filter and sort does not.
      CPPUNIT_ASSERT(
          answerErrors(host, deals(), cursorList(filter, {"-value"}, cursor), "comp_other")
              .contains("cursor"));
      // Nor another filter, another sort, or another record type.
      CPPUNIT_ASSERT(
          answerErrors(host, deals(), cursorList(R"({"status":"won"})", {"-value"}, cursor))
              .contains("cursor"));
      CPPUNIT_ASSERT(
          answerErrors(host, deals(), cursorList(filter, {"value"}, cursor)).contains("cursor"));
      CPPUNIT_ASSERT(answerErrors(host, deals(), cursorList(filter, {"-probability"}, cursor))
                         .contains("cursor"));
      CPPUNIT_ASSERT(answerErrors(host, contacts(), cursorList("", {}, cursor)).contains("cursor"));
    }
  }

  void testNumberedPagesKeepTheirMeta() {
    for (const Dialect dialect : kDialects) {
      FakeHost host(dialect);
      ListRequest list;
      list.filter = Json::parse(R"({"status":"open"})");
      list.sort = {"-value"};
      list.page = {.page = 2, .perPage = 5};
      const Response page = answered(host, deals(), list);
      const Json& meta = *page.meta;
      CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, meta["current_page"].asInt());
      CPPUNIT_ASSERT_EQUAL(std::int64_t{5}, meta["per_page"].asInt());
      CPPUNIT_ASSERT_EQUAL(std::int64_t{7}, meta["total"].asInt());
      CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, meta["last_page"].asInt());
      CPPUNIT_ASSERT(!meta.contains("next_cursor"));
      CPPUNIT_ASSERT(!host.database.statements.empty());
      for (const Statement& statement : host.database.statements) {
        assertStatementBound(statement);
        CPPUNIT_ASSERT(bindsOpen(statement));
      }
      const Statement& rows = host.database.statements.front();
      CPPUNIT_ASSERT_MESSAGE(rows.sql, has(rows.sql, "ORDER BY value DESC"));
      CPPUNIT_ASSERT_MESSAGE(rows.sql, hasWord(rows.sql, "offset"));
    }
  }

  // A keyset page writes its LIMIT when no value of its filter can change
  // its best plan (compiled.h, onePlanFits), so that PostgreSQL keeps one
  // generic plan for it; any other binds its LIMIT and PostgreSQL plans it
  // for its values on each request (keyset.cpp).
  void testOnlyListsOfOnePlanWriteTheirLimit() {
    struct List {
      std::string filter;
      std::vector<std::string> sort;
      bool onePlan;
    };
    const std::vector<List> lists = {
        {"", {}, true},
        {"", {"name"}, true},
        // A range on the order's first key, and conditions no index serves.
        {R"({"name":{"gte":"m"},"or":[{"owner_id":{"null":true}},{"job_title":{"ne":"CEO"}}]})",
         {"name"},
         true},
        {R"({"created_at":{"gte":"2023-01-01T00:00:00Z","lt":"2023-02-01T00:00:00Z"}})", {}, true},
        {R"({"and":[{"name":{"lt":"b"}},{"email":{"null":false}}]})", {"name"}, true},
        {R"({"job_title":{"ne":"CEO"},"owner_id":{"nin":["user_1"]}})", {}, true},
        {R"({"not":{"owner_id":"user_1"}})", {}, true},
        // An index of their own may serve them: how many rows match matters.
        {R"({"owner_id":"user_1"})", {}, false},
        {R"({"owner_id":{"null":true}})", {}, false},
        {R"({"name":{"gte":"m"}})", {}, false},
        {R"({"name":{"gte":"m"},"owner_id":{"in":["user_1"]}})", {"name"}, false},
        {R"({"or":[{"owner_id":"user_1"},{"owner_id":"user_2"}]})", {}, false},
        {R"({"name":{"contains":"quennell"}})", {"name"}, false},
        {R"({"name":{"starts_with":"ma"}})", {"name"}, false},
        {R"({"tags":{"contains":"vip"}})", {}, false},
        {R"({"company.industry":"Retail"})", {}, false},
    };
    for (const Dialect dialect : kDialects) {
      for (const List& list : lists) {
        FakeHost host(dialect);
        answered(host, contacts(), cursorList(list.filter, list.sort));
        const Statement& page = host.database.statements.back();
        assertStatementBound(page);
        const std::string limit = page.sql.substr(page.sql.rfind(" LIMIT "));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(list.filter,
                                     std::string(list.onePlan ? " LIMIT 3" : " LIMIT ?"), limit);
        if (!list.onePlan) {
          CPPUNIT_ASSERT_EQUAL(std::int64_t{3}, page.params.back().asInt());
        }
      }
    }
  }

  void testCountAddsTheTotalOfTheSameClause() {
    for (const Dialect dialect : kDialects) {
      FakeHost host(dialect);
      host.database.rows = 1;
      ListRequest list = cursorList(R"({"value":{"gte":5},"owner_id":{"ne":"user_x"}})", {});
      list.count = true;
      const Response counted = answered(host, deals(), list);
      CPPUNIT_ASSERT_EQUAL(std::int64_t{7}, (*counted.meta)["total"].asInt());
      // The page and the count (on SQLite, after the range's density probe).
      std::vector<Statement> statements;
      for (const Statement& statement : host.database.statements) {
        if (!statement.sql.starts_with("SELECT COUNT(*) AS n FROM ("))
          statements.push_back(statement);
      }
      CPPUNIT_ASSERT_EQUAL(std::size_t{2}, statements.size());
      const Statement& page = statements[0];
      const Statement& count = statements[1];
      assertStatementBound(count);
      // The page's WHERE and values (without its LIMIT) are the count's.
      const std::string where = count.sql.substr(count.sql.find(" WHERE "));
      CPPUNIT_ASSERT_MESSAGE(page.sql + "\n" + count.sql, has(page.sql, where));
      CPPUNIT_ASSERT_EQUAL(page.params.size() - 1, count.params.size());
      for (std::size_t i = 0; i < count.params.size(); ++i) {
        CPPUNIT_ASSERT_EQUAL(page.params[i].asString(), count.params[i].asString());
      }
    }
  }

  void testFieldsKeepOnlyThoseAndId() {
    FakeHost host(Dialect::SQLite);
    host.database.rows = 2;
    ListRequest list = cursorList("", {});
    list.fields = {"title"};
    const Response shaped = answered(host, deals(), list);
    for (const Json& record : shaped.data->asArray()) {
      CPPUNIT_ASSERT_EQUAL(std::size_t{2}, record.size());
      CPPUNIT_ASSERT(record.contains("id") && record.contains("title"));
    }
    list.include = {"company"};
    const Response embedded = answered(host, deals(), list);
    for (const Json& record : embedded.data->asArray()) {
      CPPUNIT_ASSERT_EQUAL(std::size_t{3}, record.size());
      CPPUNIT_ASSERT(record.contains("company"));
    }
  }

  void testIncludeEmbedsFromTheListsCompany() {
    FakeHost host(Dialect::PostgreSQL);
    host.database.rows = 2;  // deal_100 (company cmp_1), deal_99 (none)
    ListRequest list = cursorList("", {});
    list.include = {"company"};
    for (const std::string& tenant : {kTenant, std::string("comp_other")}) {
      const Response answer = answered(host, deals(), list, tenant);
      const Json::Array& records = answer.data->asArray();
      CPPUNIT_ASSERT_EQUAL(std::size_t{2}, records.size());
      const Json& company = records[0]["company"];
      CPPUNIT_ASSERT_EQUAL(std::string("cmp_1"), company["id"].asString());
      CPPUNIT_ASSERT_EQUAL(std::string("company"), company["type"].asString());
      // Fetched in the list's own company, never another's.
      CPPUNIT_ASSERT_EQUAL(tenant, company["asked_for"].asString());
      CPPUNIT_ASSERT(records[1].contains("company"));
      CPPUNIT_ASSERT(records[1]["company"].isNull());
      // The reference itself stays.
      CPPUNIT_ASSERT_EQUAL(std::string("cmp_1"), records[0]["company_id"].asString());
    }
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(AnswerTest);
