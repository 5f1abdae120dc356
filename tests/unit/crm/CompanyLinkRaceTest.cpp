// A contact's link to a CRM company and the company's delete, racing on two
// sessions (docs/modules/contacts.md, "Concurrency"): the check of the company
// (companies::store::exists, the "company" record check) share-locks the row on
// PostgreSQL, so whichever transaction comes second waits for the first and
// no contact is left pointing at a deleted company. SQLite serialises writers.
#include <cppunit/extensions/HelperMacros.h>

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
// How long the first transaction keeps its lock after the second one starts.
constexpr milliseconds kHold{400};

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

  // What ContactsRoutes::create and CompaniesRoutes::remove do in their transactions.
  static void deleteCompany(const std::string& id) {
    db().transaction(kTenant, [&](rapport::Tx& tx) {
      CPPUNIT_ASSERT(companies::store::remove(tx, id));
      contacts::store::unlinkCompany(tx, id, rapport::nowMicros());  // onRecordDeleted("company")
    });
  }

  void testDeleteWaitsForTheContactThatLinksToIt() {
    const std::string company = createCompany();
    const std::string contact = rapport::newId("cont_");
    std::promise<void> checked;
    bool existed = false;
    Worker linker([&] {
      db().transaction(kTenant, [&](rapport::Tx& tx) {
        existed = companies::store::exists(tx, tx.companyId(), company, rapport::RecordLock::Share);
        checked.set_value();
        std::this_thread::sleep_for(kHold);  // the delete starts meanwhile
        contacts::store::insert(tx, contact, contactOf(company), rapport::nowMicros());
      });
    });
    checked.get_future().wait();
    const auto start = steady_clock::now();
    deleteCompany(company);
    const auto waited = steady_clock::now() - start;
    linker.join();

    CPPUNIT_ASSERT(existed);
    CPPUNIT_ASSERT_MESSAGE("the delete did not wait for the linking transaction",
                           waited >= kHold / 2);
    const auto row = contacts::store::find(db(), kTenant, contact);
    CPPUNIT_ASSERT(row);
    CPPUNIT_ASSERT_MESSAGE("the new contact still points at the deleted company",
                           row->isNull("crm_company_id"));
  }

  void testLinkWaitsForTheDeleteAndFindsNoCompany() {
    const std::string company = createCompany();
    std::promise<void> deleted;
    Worker deleter([&] {
      db().transaction(kTenant, [&](rapport::Tx& tx) {
        companies::store::remove(tx, company);
        deleted.set_value();
        std::this_thread::sleep_for(kHold);  // the check starts meanwhile
        contacts::store::unlinkCompany(tx, company, rapport::nowMicros());
      });
    });
    deleted.get_future().wait();
    const auto start = steady_clock::now();
    bool existed = true;
    db().transaction(kTenant, [&](rapport::Tx& tx) {
      existed = companies::store::exists(tx, tx.companyId(), company, rapport::RecordLock::Share);
    });
    const auto waited = steady_clock::now() - start;
    deleter.join();

    CPPUNIT_ASSERT_MESSAGE("the check saw a company being deleted", !existed);
    CPPUNIT_ASSERT_MESSAGE("the check did not wait for the delete", waited >= kHold / 2);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(CompanyLinkRaceTest);
