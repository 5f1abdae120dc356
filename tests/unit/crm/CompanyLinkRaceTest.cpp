// A contact's link to a CRM company and the company's delete, racing on two
// sessions (docs/modules/contacts.md, "Concurrency"): the check of the company
// (companies::store::exists with RecordLock::Share, what
// RecordDirectory::lockForReference runs for "company") key-share-locks the
// row on PostgreSQL, so whichever transaction comes second waits for the
// first and no contact is left pointing at a deleted company. SQLite
// serialises writers.
//
// No sleeps: on PostgreSQL the first transaction goes on only once the
// second one is seen waiting for its lock (pg_stat_activity: wait_event_type
// 'Lock', blocked by the first one's backend). SQLite offers nothing to see:
// the second writer queues on the host's WriterGate mutex, which tells no one
// (a waiting count on WriterGate, like SessionPool::awaitWaiting, would), so
// there the first transaction goes on at once; what both engines assert is
// that the second transaction cannot finish while the first is open, and
// the outcome.
#include <cppunit/extensions/HelperMacros.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <future>
#include <memory>
#include <string>
#include <thread>

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

using std::chrono::milliseconds;
using std::chrono::steady_clock;

const std::string kTenant = "comp_tenant";
// How long the first transaction looks for the second one waiting.
constexpr milliseconds kWaitLimit{20000};

// Runs `fn` on a thread; join() rethrows what it threw.
class Worker {
 public:
  template <typename Fn>
  explicit Worker(Fn fn)
      : thread_([this, fn]() mutable {
          try {
            fn();
          } catch (...) {
            error_ = std::current_exception();
          }
        }) {}
  ~Worker() {
    if (thread_.joinable()) thread_.join();
  }
  void join() {
    thread_.join();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::exception_ptr error_;
  std::thread thread_;  // last: starts once error_ exists
};

contacts::Contact contactOf(const std::string& crmCompanyId) {
  return {.name = "Ada",
          .email = std::nullopt,
          .phone = std::nullopt,
          .jobTitle = std::nullopt,
          .crmCompanyId = crmCompanyId,
          .ownerId = std::nullopt,
          .tags = {},
          .notes = std::nullopt};
}

// The backend of the session running `tx` (PostgreSQL).
std::int64_t backendPid(rapport::Tx& tx) {
  return tx.query("SELECT pg_backend_pid() AS pid").front().i64("pid");
}

}  // namespace

class CompanyLinkRaceTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(CompanyLinkRaceTest);
  CPPUNIT_TEST(testDeleteWaitsForTheContactThatLinksToIt);
  CPPUNIT_TEST(testLinkWaitsForTheDeleteAndFindsNoCompany);
  CPPUNIT_TEST_SUITE_END();

 public:
  static rapport::host::SqlDatabase& db() {
    static std::unique_ptr<rapport::host::SqlDatabase> db = [] {
      rapport::host::StorageOptions options;
      options.url = rapport::test::freshDatabaseUrl("crm_race");
      auto opened = rapport::host::SqlDatabase::open(options);
      rapport::host::Migrator(*opened).apply(
          {{"contacts", rapport_generated::contacts::migrations()},
           {"companies", rapport_generated::companies::migrations()}});
      return opened;
    }();
    return *db;
  }

  static bool onPostgres() { return db().dialect() == rapport::Dialect::PostgreSQL; }

  // PostgreSQL: waits until another backend, running a statement that starts
  // with `statement`, waits for a lock that backend `holder` holds. Polls
  // pg_stat_activity from another pooled session; false after kWaitLimit.
  static bool awaitLockWaiter(std::int64_t holder, const std::string& statement) {
    const auto deadline = steady_clock::now() + kWaitLimit;
    for (;;) {
      const rapport::Result waiting = db().query(
          "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
          "AND ? = ANY(pg_blocking_pids(pid)) AND starts_with(query, ?)",
          {holder, statement});
      if (!waiting.empty()) return true;
      if (steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(milliseconds(10));
    }
  }

  static std::string createCompany() {
    const std::string id = rapport::newId("comp_");
    db().transaction(kTenant, [&](rapport::Tx& tx) {
      companies::store::insert(tx, id,
                               {.name = "Initech",
                                .document = std::nullopt,
                                .industry = std::nullopt,
                                .website = std::nullopt,
                                .size = std::nullopt,
                                .annualRevenue = std::nullopt,
                                .phone = std::nullopt,
                                .tags = {"x"},
                                .notes = std::nullopt},
                               rapport::nowMicros());
    });
    return id;
  }

  // What CompaniesRoutes::remove does in its transaction.
  static void deleteCompany(const std::string& id) {
    db().transaction(kTenant, [&](rapport::Tx& tx) {
      CPPUNIT_ASSERT(companies::store::remove(tx, id));
      contacts::store::unlinkCompany(tx, id, rapport::nowMicros());  // onRecordDeleted("company")
    });
  }

  // The link's check comes first: the delete waits for the link to commit,
  // then unlinks the new contact.
  void testDeleteWaitsForTheContactThatLinksToIt() {
    const std::string company = createCompany();
    const std::string contact = rapport::newId("cont_");
    std::promise<void> checked;
    std::atomic<bool> deleteDone{false};
    bool existed = false;
    bool deleteSeenWaiting = false;
    bool deleteDoneWhileLinkOpen = true;
    Worker linker([&] {
      // What ContactsRoutes::create does: lockForReference("company"), insert.
      db().transaction(kTenant, [&](rapport::Tx& tx) {
        existed = companies::store::exists(tx, tx.companyId(), company, rapport::RecordLock::Share);
        const std::int64_t pid = onPostgres() ? backendPid(tx) : 0;
        checked.set_value();
        if (onPostgres()) deleteSeenWaiting = awaitLockWaiter(pid, "DELETE FROM crm_companies");
        contacts::store::insert(tx, contact, contactOf(company), rapport::nowMicros());
        deleteDoneWhileLinkOpen = deleteDone.load();
      });
    });
    checked.get_future().wait();
    Worker deleter([&] {
      deleteCompany(company);
      deleteDone = true;
    });
    linker.join();
    deleter.join();

    CPPUNIT_ASSERT(existed);
    if (onPostgres()) {
      CPPUNIT_ASSERT_MESSAGE("the delete never waited for the linking transaction's lock",
                             deleteSeenWaiting);
    }
    CPPUNIT_ASSERT_MESSAGE("the delete finished while the linking transaction was open",
                           !deleteDoneWhileLinkOpen);
    CPPUNIT_ASSERT(!companies::store::exists(db(), kTenant, company));
    const auto row = contacts::store::find(db(), kTenant, contact);
    CPPUNIT_ASSERT(row);
    CPPUNIT_ASSERT_MESSAGE("the new contact still points at the deleted company",
                           row->isNull("crm_company_id"));
  }

  // The delete comes first: the link's check waits for it to commit, then
  // finds no company.
  void testLinkWaitsForTheDeleteAndFindsNoCompany() {
    const std::string company = createCompany();
    std::promise<void> deleted;
    std::atomic<bool> checkDone{false};
    bool checkSeenWaiting = false;
    bool checkDoneWhileDeleteOpen = true;
    Worker deleter([&] {
      db().transaction(kTenant, [&](rapport::Tx& tx) {
        CPPUNIT_ASSERT(companies::store::remove(tx, company));
        const std::int64_t pid = onPostgres() ? backendPid(tx) : 0;
        deleted.set_value();
        if (onPostgres()) checkSeenWaiting = awaitLockWaiter(pid, "SELECT 1 FROM crm_companies");
        contacts::store::unlinkCompany(tx, company, rapport::nowMicros());
        checkDoneWhileDeleteOpen = checkDone.load();
      });
    });
    deleted.get_future().wait();
    bool existed = true;
    db().transaction(kTenant, [&](rapport::Tx& tx) {
      existed = companies::store::exists(tx, tx.companyId(), company, rapport::RecordLock::Share);
    });
    checkDone = true;
    deleter.join();

    if (onPostgres()) {
      CPPUNIT_ASSERT_MESSAGE("the check never waited for the delete's lock", checkSeenWaiting);
    }
    CPPUNIT_ASSERT_MESSAGE("the check finished while the delete was open",
                           !checkDoneWhileDeleteOpen);
    CPPUNIT_ASSERT_MESSAGE("the check saw a company being deleted", !existed);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(CompanyLinkRaceTest);
