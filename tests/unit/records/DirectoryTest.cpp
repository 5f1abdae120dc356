// The record directory as modules use it (records.h): what each call runs,
// with which lock, and that a guard's refusal stops a deletion before any
// reaction runs.
#include <cppunit/extensions/HelperMacros.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "rapport/error.h"
#include "records/Directory.h"

using rapport::Json;
using rapport::RecordLock;
using rapport::host::Directory;

namespace {

// A transaction that runs no SQL: the directory only passes it along.
class NoSqlTx final : public rapport::Tx {
 public:
  rapport::Dialect dialect() const override { return rapport::Dialect::PostgreSQL; }
  rapport::Result query(std::string_view, const rapport::Params&) override {
    throw std::logic_error("no SQL here");
  }
  std::int64_t exec(std::string_view, const rapport::Params&) override {
    throw std::logic_error("no SQL here");
  }
  const std::string& companyId() const override { return company_; }
  void emit(const std::string&, const Json&) override {}
  void afterCommit(std::function<void()>) override {}

 private:
  std::string company_ = "comp_tenant";
};

// A "contact" type whose records are `ids`; it notes each lookup's lock.
struct Contacts {
  std::vector<std::string> ids = {"cont_a"};
  std::vector<RecordLock> locks;

  rapport::RecordType type(bool withFetch) {
    rapport::RecordType record;
    record.exists = [this](rapport::Queryable&, const std::string& company, const std::string& id,
                           RecordLock lock) {
      locks.push_back(lock);
      return company == "comp_tenant" && std::find(ids.begin(), ids.end(), id) != ids.end();
    };
    if (withFetch) {
      record.fetch = [this](rapport::Queryable& db, const std::string& company,
                            const std::string& id, RecordLock lock) -> std::optional<Json> {
        if (!this->type(false).exists(db, company, id, lock)) return std::nullopt;
        return Json::object({{"id", id}, {"name", "Ada"}});
      };
    }
    return record;
  }
};

}  // namespace

class DirectoryTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(DirectoryTest);
  CPPUNIT_TEST(testExistsIsAPlainRead);
  CPPUNIT_TEST(testLockForReferenceTakesTheShareLockInTheTxCompany);
  CPPUNIT_TEST(testUnknownTypes);
  CPPUNIT_TEST(testFetch);
  CPPUNIT_TEST(testFetchWithoutAnOwnerFetchIsAProgrammingError);
  CPPUNIT_TEST(testTwoOwnersOfOneTypeAreRefused);
  CPPUNIT_TEST(testAGuardRefusesBeforeAnyReactionRuns);
  CPPUNIT_TEST(testReactionsRunWhenNoGuardRefuses);
  CPPUNIT_TEST(testAugmentsAddFieldsToTheBatch);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testExistsIsAPlainRead() {
    Contacts contacts;
    Directory directory;
    directory.addType("contact", "contacts", contacts.type(false));
    NoSqlTx tx;
    CPPUNIT_ASSERT(directory.exists(tx, "comp_tenant", "contact", "cont_a"));
    CPPUNIT_ASSERT(!directory.exists(tx, "comp_other", "contact", "cont_a"));
    CPPUNIT_ASSERT(!directory.exists(tx, "comp_tenant", "contact", "cont_b"));
    CPPUNIT_ASSERT(contacts.locks == std::vector<RecordLock>(3, RecordLock::None));
  }

  void testLockForReferenceTakesTheShareLockInTheTxCompany() {
    Contacts contacts;
    Directory directory;
    directory.addType("contact", "contacts", contacts.type(false));
    NoSqlTx tx;
    CPPUNIT_ASSERT(directory.lockForReference(tx, "contact", "cont_a"));
    CPPUNIT_ASSERT(!directory.lockForReference(tx, "contact", "cont_b"));
    CPPUNIT_ASSERT(contacts.locks == std::vector<RecordLock>(2, RecordLock::Share));
  }

  void testUnknownTypes() {
    Directory directory;
    NoSqlTx tx;
    CPPUNIT_ASSERT(!directory.knows("deal"));
    CPPUNIT_ASSERT(!directory.exists(tx, "comp_tenant", "deal", "deal_a"));
    CPPUNIT_ASSERT(!directory.lockForReference(tx, "deal", "deal_a"));
    CPPUNIT_ASSERT(!directory.fetch(tx, "comp_tenant", "deal", "deal_a", RecordLock::None));
    directory.deleted(tx, "deal", "deal_a");  // nobody to ask or tell
  }

  void testFetch() {
    Contacts contacts;
    Directory directory;
    directory.addType("contact", "contacts", contacts.type(true));
    NoSqlTx tx;
    const auto found = directory.fetch(tx, "comp_tenant", "contact", "cont_a", RecordLock::Share);
    CPPUNIT_ASSERT(found);
    CPPUNIT_ASSERT_EQUAL(std::string("Ada"), (*found)["name"].asString());
    CPPUNIT_ASSERT(!directory.fetch(tx, "comp_other", "contact", "cont_a", RecordLock::None));
    CPPUNIT_ASSERT(contacts.locks.front() == RecordLock::Share);
  }

  void testFetchWithoutAnOwnerFetchIsAProgrammingError() {
    Contacts contacts;
    Directory directory;
    directory.addType("contact", "contacts", contacts.type(false));
    NoSqlTx tx;
    CPPUNIT_ASSERT_THROW(directory.fetch(tx, "comp_tenant", "contact", "cont_a", RecordLock::None),
                         std::logic_error);
  }

  void testTwoOwnersOfOneTypeAreRefused() {
    Contacts contacts;
    Directory directory;
    directory.addType("contact", "contacts", contacts.type(false));
    CPPUNIT_ASSERT_THROW(directory.addType("contact", "people", contacts.type(false)),
                         std::logic_error);
    CPPUNIT_ASSERT_THROW(directory.addType("lead", "leads", rapport::RecordType{}),
                         std::logic_error);
  }

  void testAGuardRefusesBeforeAnyReactionRuns() {
    Directory directory;
    std::vector<std::string> calls;
    directory.addReaction(
        "pipeline", [&](rapport::Tx&, const std::string& id) { calls.push_back("unlink " + id); });
    directory.addGuard("pipeline", [&](rapport::Tx&, const std::string& id) {
      calls.push_back("ask " + id);
      return std::optional<std::string>();
    });
    directory.addGuard("pipeline", [&](rapport::Tx&, const std::string& id) {
      calls.push_back("refuse " + id);
      return std::optional<std::string>("The pipeline has deals.");
    });
    NoSqlTx tx;
    try {
      directory.deleted(tx, "pipeline", "pipe_a");
      CPPUNIT_FAIL("the refusal was not thrown");
    } catch (const rapport::Error& e) {
      CPPUNIT_ASSERT_EQUAL(409, e.status());
      CPPUNIT_ASSERT_EQUAL(std::string("The pipeline has deals."), std::string(e.what()));
    }
    CPPUNIT_ASSERT((calls == std::vector<std::string>{"ask pipe_a", "refuse pipe_a"}));
  }

  void testReactionsRunWhenNoGuardRefuses() {
    Directory directory;
    std::vector<std::string> calls;
    directory.addGuard("contact", [&](rapport::Tx&, const std::string&) {
      calls.push_back("ask");
      return std::optional<std::string>();
    });
    directory.addReaction("contact",
                          [&](rapport::Tx&, const std::string&) { calls.push_back("deals"); });
    directory.addReaction("contact",
                          [&](rapport::Tx&, const std::string&) { calls.push_back("activities"); });
    NoSqlTx tx;
    directory.deleted(tx, "contact", "cont_a");
    CPPUNIT_ASSERT((calls == std::vector<std::string>{"ask", "deals", "activities"}));
  }

  void testAugmentsAddFieldsToTheBatch() {
    Directory directory;
    int calls = 0;
    directory.addAugment(
        "pipeline", [&](rapport::Queryable&, const std::string& company, Json::Array& records) {
          ++calls;
          for (Json& record : records) record.set("deals_count", company == "comp_tenant" ? 2 : 0);
        });
    NoSqlTx tx;
    Json::Array none;
    directory.augment(tx, "comp_tenant", "pipeline", none);  // nothing to add to: not called
    Json::Array pipelines = {Json::object({{"id", "pipe_a"}}), Json::object({{"id", "pipe_b"}})};
    directory.augment(tx, "comp_tenant", "pipeline", pipelines);
    CPPUNIT_ASSERT_EQUAL(1, calls);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, pipelines[1]["deals_count"].asInt());
    Json::Array contacts = {Json::object({{"id", "cont_a"}})};
    directory.augment(tx, "comp_tenant", "contact", contacts);
    CPPUNIT_ASSERT(!contacts[0].contains("deals_count"));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(DirectoryTest);
