// The Idempotency-Key's fence on the engine under test: what the key says
// after a keyed request's transactions, and what a repeat is then told.
// The HTTP side (replays, 409, 422, lease take-over) is e2e.idempotency.
#include <cppunit/extensions/HelperMacros.h>

#include <memory>
#include <string>

#include "idempotency/IdempotencyKeys.h"
#include "rapport/error.h"
#include "rapport/ids.h"
#include "secrets/SecretBox.h"
#include "storage/HostDatabase.h"
#include "storage/RequestTransactions.h"

using rapport::Json;
using rapport::Tx;
using rapport::host::IdempotencyKeys;
using rapport::host::RawResponse;
using rapport::host::RequestTransactions;

namespace {

constexpr std::int64_t kNow = 1'000'000'000'000'000;

rapport::Request keyedPost() {
  rapport::Request request;
  request.method = "POST";
  request.path = "/v1/crm/notes";
  request.body = Json::object({{"title", "Call Ada"}});
  request.hasBody = true;
  request.identity.companyId = "comp_a";
  request.identity.userId = "user_a";
  return request;
}

bool saysRetryAfter(const rapport::Error& error) {
  for (const auto& [name, value] : error.headers()) {
    if (name == "Retry-After") return true;
  }
  return false;
}

RawResponse answer(int status, const std::string& body) {
  RawResponse response;
  response.status = status;
  response.body = body;
  return response;
}

}  // namespace

class IdempotencyFenceTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(IdempotencyFenceTest);
  CPPUNIT_TEST(testEveryTransactionMarksTheKeyWritten);
  CPPUNIT_TEST(testAFailureThatWroteIsKeptAndReplayed);
  CPPUNIT_TEST(testAFailureThatWroteNothingFreesTheKey);
  CPPUNIT_TEST(testARolledBackTransactionLeavesNoMark);
  CPPUNIT_TEST(testAHandlerThatThrewAfterWritingNeverRunsAgain);
  CPPUNIT_TEST(testAWrittenKeyWhoseInstanceDiedIsRefusedNotRun);
  CPPUNIT_TEST(testATakenOverRequestCannotCommit);
  CPPUNIT_TEST(testTheFirstHookRunsOnceTheFenceInEachTransaction);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override {
    db_ = rapport::test::storage::openWithHostMigrations();
    db_->exec("CREATE TABLE notes (id TEXT PRIMARY KEY)");
    box_ = std::make_unique<rapport::host::AesGcmSecretBox>(std::string(32, 'k'));
    keys_ = std::make_unique<IdempotencyKeys>(*db_, *box_, rapport::host::IdempotencyOptions{});
  }

  void tearDown() override {
    keys_.reset();
    db_.reset();
  }

  void testEveryTransactionMarksTheKeyWritten() {
    auto claim = begin().claim;
    CPPUNIT_ASSERT_EQUAL(std::string("running"), keyState());
    {
      const RequestTransactions armed({.first = {}, .beforeCommit = claim->fence()});
      insertNote("note_1");
      CPPUNIT_ASSERT_EQUAL(std::string("written"), keyState());
      insertNote("note_2");
    }
    claim->complete(answer(201, "{\"data\":{}}"));
    CPPUNIT_ASSERT_EQUAL(std::string("done"), keyState());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), noteCount());
  }

  // A request that wrote, then answered an error: running it again would
  // write twice, so its answer is kept and replayed like a success.
  void testAFailureThatWroteIsKeptAndReplayed() {
    auto claim = begin().claim;
    {
      const RequestTransactions armed({.first = {}, .beforeCommit = claim->fence()});
      insertNote("note_1");
    }
    claim->complete(answer(500, "{\"message\":\"Server error.\"}"));
    claim.reset();
    const IdempotencyKeys::Begun repeat = begin();
    CPPUNIT_ASSERT(repeat.replay.has_value());
    CPPUNIT_ASSERT_EQUAL(500, repeat.replay->status);
    CPPUNIT_ASSERT(repeat.replay->header("Idempotent-Replayed") != nullptr);
  }

  void testAFailureThatWroteNothingFreesTheKey() {
    auto claim = begin().claim;
    claim->complete(answer(422, "{\"message\":\"The given data was invalid.\"}"));
    claim.reset();
    CPPUNIT_ASSERT_EQUAL(std::string("<none>"), keyState());
    CPPUNIT_ASSERT(begin().claim != nullptr);
  }

  // The mark is part of the transaction: a transaction that rolls back
  // (the handler threw in it) leaves the key "running", and the request's
  // error frees it.
  void testARolledBackTransactionLeavesNoMark() {
    auto claim = begin().claim;
    {
      const RequestTransactions armed({.first = {}, .beforeCommit = claim->fence()});
      CPPUNIT_ASSERT_THROW(db_->transaction("comp_a",
                                            [](Tx& tx) {
                                              tx.exec("INSERT INTO notes (id) VALUES ('note_1')");
                                              throw rapport::Error::notFound();
                                            }),
                           rapport::Error);
    }
    CPPUNIT_ASSERT_EQUAL(std::string("running"), keyState());
    claim->complete(answer(404, "{\"message\":\"Not found.\"}"));
    CPPUNIT_ASSERT_EQUAL(std::string("<none>"), keyState());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), noteCount());
  }

  // The handler threw after a transaction committed: no answer to keep, so
  // the key is left "written" with its lease over, and a repeat is told at
  // once that the request will not run again.
  void testAHandlerThatThrewAfterWritingNeverRunsAgain() {
    {
      auto claim = begin().claim;
      const RequestTransactions armed({.first = {}, .beforeCommit = claim->fence()});
      insertNote("note_1");
    }  // destroyed without complete(): the handler threw
    CPPUNIT_ASSERT_EQUAL(std::string("written"), keyState());
    const rapport::Error refused = refusal();
    CPPUNIT_ASSERT_EQUAL(409, refused.status());
    CPPUNIT_ASSERT(std::string(refused.what()).find("will not run again") != std::string::npos);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), noteCount());
  }

  // The instance died between the COMMIT and keeping the answer: repeats
  // wait while its lease runs, then are told it wrote; none runs it again.
  void testAWrittenKeyWhoseInstanceDiedIsRefusedNotRun() {
    auto claim = begin().claim;
    {
      const RequestTransactions armed({.first = {}, .beforeCommit = claim->fence()});
      insertNote("note_1");
    }
    // What a dead instance leaves: a written key nobody will complete.
    db_->exec("UPDATE idempotency_keys SET holder = 'dead'");
    claim.reset();
    const rapport::Error running = refusal();
    CPPUNIT_ASSERT_EQUAL(409, running.status());
    CPPUNIT_ASSERT(saysRetryAfter(running));
    db_->exec("UPDATE idempotency_keys SET lease_until = 1");
    const rapport::Error wrote = refusal();
    CPPUNIT_ASSERT_EQUAL(409, wrote.status());
    CPPUNIT_ASSERT(!saysRetryAfter(wrote));
    CPPUNIT_ASSERT(std::string(wrote.what()).find("made changes") != std::string::npos);
  }

  // A request that outlived its lease was taken over by a repeat: its late
  // transaction rolls back whole (the other one is the request now).
  void testATakenOverRequestCannotCommit() {
    auto slow = begin().claim;
    db_->exec("UPDATE idempotency_keys SET lease_until = 1");
    auto repeat = begin().claim;
    CPPUNIT_ASSERT(repeat != nullptr);
    {
      const RequestTransactions armed({.first = {}, .beforeCommit = slow->fence()});
      try {
        insertNote("note_slow");
        CPPUNIT_FAIL("the taken-over request committed");
      } catch (const rapport::Error& error) {
        CPPUNIT_ASSERT_EQUAL(409, error.status());
      }
    }
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), noteCount());
    CPPUNIT_ASSERT_EQUAL(std::string("running"), keyState());
    {
      const RequestTransactions armed({.first = {}, .beforeCommit = repeat->fence()});
      insertNote("note_repeat");
    }
    CPPUNIT_ASSERT_EQUAL(std::string("written"), keyState());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), noteCount());
  }

  void testTheFirstHookRunsOnceTheFenceInEachTransaction() {
    int firsts = 0, fences = 0;
    {
      const RequestTransactions armed(
          {.first = [&](Tx&) { ++firsts; }, .beforeCommit = [&](Tx&) { ++fences; }});
      insertNote("note_1");
      insertNote("note_2");
      insertNote("note_3");
    }
    insertNote("note_4");  // disarmed: neither runs
    CPPUNIT_ASSERT_EQUAL(1, firsts);
    CPPUNIT_ASSERT_EQUAL(3, fences);
  }

 private:
  IdempotencyKeys::Begun begin() { return keys_->begin(keyedPost(), "key-1", kNow); }

  // What begin() refuses a repeat with; fails the test when it does not.
  rapport::Error refusal() {
    try {
      begin();
    } catch (const rapport::Error& error) {
      return error;
    }
    CPPUNIT_FAIL("the repeat was not refused");
    return rapport::Error::notFound();
  }

  void insertNote(const std::string& id) {
    db_->transaction("comp_a", [&](Tx& tx) { tx.exec("INSERT INTO notes (id) VALUES (?)", {id}); });
  }

  std::string keyState() {
    const rapport::Result rows = db_->query("SELECT state FROM idempotency_keys");
    return rows.empty() ? "<none>" : rows.front().str("state");
  }

  std::int64_t noteCount() {
    return db_->query("SELECT COUNT(*) AS n FROM notes").front()["n"].asInt();
  }

  std::unique_ptr<rapport::host::SqlDatabase> db_;
  std::unique_ptr<rapport::host::AesGcmSecretBox> box_;
  std::unique_ptr<IdempotencyKeys> keys_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(IdempotencyFenceTest);
