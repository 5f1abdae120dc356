// The outbox table and its sender (MailService over mail_outbox) on the
// engine under test, with the host's real migrations: a mail is stored
// sealed, in the caller's transaction or not at all; the sender claims due
// mails, keeps the retry schedule, gives up, and never sends a mail twice -
// not after a crash on either side of the point of no return, not when its
// claim was taken over, not with two senders racing (SKIP LOCKED on
// PostgreSQL). A manual clock moves time; a scripted transport plays the
// network.
#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "MailTestSupport.h"
#include "jobs/JobRunner.h"
#include "mail/MailService.h"
#include "mail/SmtpTransport.h"
#include "secrets/SecretBox.h"
#include "storage/HostDatabase.h"
#include "support/smtp/SmtpServer.h"

namespace mail = rapport::host::mail;
using rapport::test::mail::LogCapture;
using rapport::test::mail::waitFor;
using rapport::test::smtp::SmtpServer;
using namespace std::chrono_literals;

namespace {

constexpr std::int64_t kStart = 1'800'000'000'000'000;  // microseconds
constexpr std::int64_t kSecond = 1'000'000;
constexpr const char* kCode = "code-424242";
constexpr const char* kSubject = "Your sign-in code";

mail::MailMessage message(const std::string& to = "ann@example.com") {
  return {to, kSubject, std::string("Your code is ") + kCode + ".",
          std::string("<p>Your code is ") + kCode + ".</p>", "two-factor-code"};
}

// What a process's death looks like to the sender: not a std::exception, so
// nothing catches it and nothing is recorded.
struct Crash {};

// The network, scripted per attempt.
class ScriptedTransport : public mail::Transport {
 public:
  enum class Step { Deliver, FailBefore, Refuse, CrashBefore, FailAfter, RefuseAfter, CrashAfter };

  void deliver(const mail::Envelope& e, const mail::PointOfNoReturn& point) override {
    const Step step = next();
    if (beforePoint) beforePoint();
    if (step == Step::FailBefore) throw std::runtime_error("SMTP: Connection refused");
    if (step == Step::Refuse) throw mail::PermanentFailure("SMTP: RCPT TO refused: 550 5.1.1");
    if (step == Step::CrashBefore) throw Crash{};
    point();
    if (step == Step::FailAfter) throw std::runtime_error("SMTP: no answer to the end");
    if (step == Step::RefuseAfter) throw mail::TemporaryRefusal("SMTP: message refused: 451");
    if (step == Step::CrashAfter) throw Crash{};
    std::lock_guard lock(mutex_);
    delivered_.push_back(e);
  }
  std::string describe() const override { return "scripted"; }

  void plan(std::initializer_list<Step> steps) {
    std::lock_guard lock(mutex_);
    script_.insert(script_.end(), steps.begin(), steps.end());
  }
  std::vector<mail::Envelope> delivered() const {
    std::lock_guard lock(mutex_);
    return delivered_;
  }
  int attempts() const { return attempts_.load(); }

  // Runs before the point of no return (to hold an attempt there).
  std::function<void()> beforePoint;

 private:
  Step next() {
    ++attempts_;
    std::lock_guard lock(mutex_);
    if (script_.empty()) return Step::Deliver;
    const Step step = script_.front();
    script_.pop_front();
    return step;
  }

  mutable std::mutex mutex_;
  std::deque<Step> script_;
  std::vector<mail::Envelope> delivered_;
  std::atomic<int> attempts_{0};
};
using Step = ScriptedTransport::Step;

// A gate an attempt waits at until the test opens it.
class Gate {
 public:
  void arriveAndWait() {
    std::unique_lock lock(mutex_);
    arrived_ = true;
    changed_.notify_all();
    changed_.wait(lock, [this] { return open_; });
  }
  void waitForArrival() {
    std::unique_lock lock(mutex_);
    if (!changed_.wait_for(lock, 15s, [this] { return arrived_; })) {
      throw std::runtime_error("timed out waiting for the attempt to reach the gate");
    }
  }
  void open() {
    std::lock_guard lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool arrived_ = false;
  bool open_ = false;
};

}  // namespace

class OutboxTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(OutboxTest);
  CPPUNIT_TEST(testStoredSealedThenBlanked);
  CPPUNIT_TEST(testQueuedOnlyWithItsTransaction);
  CPPUNIT_TEST(testRefusedMessageNotQueued);
  CPPUNIT_TEST(testFullOutboxDropsNewMessage);
  CPPUNIT_TEST(testRetryScheduleKept);
  CPPUNIT_TEST(testGivenUpAfterTheLastAttempt);
  CPPUNIT_TEST(testPermanentRefusalNotRetried);
  CPPUNIT_TEST(testRefusalAfterThePointRetried);
  CPPUNIT_TEST(testUnknownOutcomeNeverRetried);
  CPPUNIT_TEST(testCrashBeforeThePointSentOnceByTheNextSender);
  CPPUNIT_TEST(testCrashAfterThePointNeverSentAgain);
  CPPUNIT_TEST(testSenderTakenOverCannotSend);
  CPPUNIT_TEST(testTwoSendersRacingSendEachMailOnce);
  CPPUNIT_TEST(testFinishedMailsPurged);
  CPPUNIT_TEST(testTheJobSendsWhatIsQueued);
  CPPUNIT_TEST(testSmtpThroughTheOutbox);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override {
    db_ = rapport::test::storage::openWithHostMigrations();
    box_ = std::make_unique<rapport::host::AesGcmSecretBox>(std::string(32, 'k'));
    now_ = kStart;
  }
  void tearDown() override {
    box_.reset();
    db_.reset();
  }

  // The row's columns, by name (one mail in the table).
  rapport::Row row(const std::string& id) {
    const auto rows = db_->query(
        "SELECT id, purpose, to_domain, message_sealed, state, attempts, due_at, holder, "
        "lease_until, finished_at FROM mail_outbox WHERE id = ?",
        {id});
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, rows.size());
    return rows.front();
  }
  std::string onlyId() {
    const auto rows = db_->query("SELECT id FROM mail_outbox");
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, rows.size());
    return rows.front().str("id");
  }

  void testStoredSealedThenBlanked() {
    LogCapture log;
    auto [service, transport] = make();
    service->send(message());
    const rapport::Row queued = row(onlyId());
    CPPUNIT_ASSERT_EQUAL(std::string("queued"), queued.str("state"));
    CPPUNIT_ASSERT_EQUAL(std::string("two-factor-code"), queued.str("purpose"));
    CPPUNIT_ASSERT_EQUAL(std::string("example.com"), queued.str("to_domain"));
    CPPUNIT_ASSERT_EQUAL(kStart, queued.i64("due_at"));
    const std::string sealed = queued.str("message_sealed");
    CPPUNIT_ASSERT(sealed.rfind("rk1:", 0) == 0);
    for (const char* secret : {kCode, kSubject, "ann@", "Your code"}) {
      CPPUNIT_ASSERT_MESSAGE(secret, sealed.find(secret) == std::string::npos);
    }
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, service->queued());

    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, service->sendDue());
    const auto delivered = transport->delivered();
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, delivered.size());
    CPPUNIT_ASSERT_EQUAL(std::string("ann@example.com"), delivered[0].to);
    CPPUNIT_ASSERT(delivered[0].mime.find("424242") != std::string::npos);
    const rapport::Row sent = row(delivered[0].id);
    CPPUNIT_ASSERT_EQUAL(std::string("sent"), sent.str("state"));
    CPPUNIT_ASSERT(sent.isNull("message_sealed"));
    CPPUNIT_ASSERT(sent.isNull("holder"));
    CPPUNIT_ASSERT_EQUAL(kStart, sent.i64("finished_at"));
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, service->queued());
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, service->sendDue());  // nothing left
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"mail queued", "mail_id=" + delivered[0].id,
                                            "purpose=two-factor-code", "to_domain=example.com"}));
    CPPUNIT_ASSERT_EQUAL(1,
                         log.countLines({"mail sent", "mail_id=" + delivered[0].id, "attempt=1"}));
    CPPUNIT_ASSERT(!log.contains(kCode));
    CPPUNIT_ASSERT(!log.contains(kSubject));
    CPPUNIT_ASSERT(!log.contains("ann@"));
  }

  void testQueuedOnlyWithItsTransaction() {
    LogCapture log;
    auto [service, transport] = make();
    CPPUNIT_ASSERT_THROW(db_->transaction("",
                                          [&](rapport::Tx& tx) {
                                            service->send(tx, message("rolled@back.test"));
                                            throw std::runtime_error("the request failed");
                                          }),
                         std::runtime_error);
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, service->queued());
    db_->transaction("", [&](rapport::Tx& tx) { service->send(tx, message()); });
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, service->queued());
    service->sendDue();
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, transport->delivered().size());
    CPPUNIT_ASSERT_EQUAL(std::string("ann@example.com"), transport->delivered()[0].to);
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"mail queued"}));
    CPPUNIT_ASSERT_EQUAL(0, log.countLines({"back.test"}));
  }

  void testRefusedMessageNotQueued() {
    auto [service, transport] = make();
    CPPUNIT_ASSERT_THROW(service->send(message("ann@example.com\r\nBcc: eve@evil.test")),
                         std::invalid_argument);
    mail::MailMessage bad = message();
    bad.subject = "Hello\nX-Evil: 1";
    CPPUNIT_ASSERT_THROW(service->send(bad), std::invalid_argument);
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, service->queued());
  }

  void testFullOutboxDropsNewMessage() {
    LogCapture log;
    mail::MailOptions o = options();
    o.queueSize = 2;
    auto [service, transport] = make(o);
    service->send(message("a@example.com"));
    service->send(message("b@example.com"));
    service->send(message("c@example.net"));  // dropped, and send() does not throw
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, service->queued());
    CPPUNIT_ASSERT_EQUAL(
        1, log.countLines({"level=error", "mail dropped: queue full", "purpose=two-factor-code",
                           "to_domain=example.net", "queue_size=2"}));
    service->sendDue();
    std::vector<std::string> to;
    for (const auto& e : transport->delivered()) to.push_back(e.to);
    std::sort(to.begin(), to.end());
    CPPUNIT_ASSERT(to == (std::vector<std::string>{"a@example.com", "b@example.com"}));
  }

  // Today's schedule (0, 30 s, 2 min, ...): each retry waits its delay from
  // the previous failure, and not a moment less.
  void testRetryScheduleKept() {
    LogCapture log;
    auto [service, transport] = make(mail::MailOptions{});
    transport->plan({Step::FailBefore, Step::FailBefore});
    service->send(message());
    const std::string id = onlyId();
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, service->sendDue());
    CPPUNIT_ASSERT_EQUAL(std::string("queued"), row(id).str("state"));
    CPPUNIT_ASSERT_EQUAL(kStart + 30 * kSecond, row(id).i64("due_at"));
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"mail failed, will retry", "attempt=1",
                                            "retry_in_ms=30000", "Connection refused"}));
    now_ += 30 * kSecond - 1;
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, service->sendDue());
    now_ += 1;
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, service->sendDue());
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"will retry", "attempt=2", "retry_in_ms=120000"}));
    now_ += 120 * kSecond;
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, service->sendDue());
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"mail sent", "attempt=3"}));
    CPPUNIT_ASSERT_EQUAL(3, transport->attempts());
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, transport->delivered().size());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3}, row(id).i64("attempts"));
  }

  void testGivenUpAfterTheLastAttempt() {
    LogCapture log;
    auto [service, transport] = make();  // two attempts
    transport->plan({Step::FailBefore, Step::FailBefore, Step::FailBefore});
    service->send(message());
    const std::string id = onlyId();
    service->sendDue();
    now_ += kSecond;
    service->sendDue();
    now_ += 3600 * kSecond;
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, service->sendDue());
    CPPUNIT_ASSERT_EQUAL(2, transport->attempts());
    CPPUNIT_ASSERT_EQUAL(std::string("failed"), row(id).str("state"));
    CPPUNIT_ASSERT(row(id).isNull("message_sealed"));
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"level=error", "mail failed, given up", "attempt=2",
                                            "Connection refused"}));
  }

  void testPermanentRefusalNotRetried() {
    LogCapture log;
    auto [service, transport] = make();
    transport->plan({Step::Refuse});
    service->send(message("gone@example.com"));
    now_ += 1;  // due after the first: mails of one instant go in no set order
    service->send(message());
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, service->sendDue());
    now_ += 3600 * kSecond;
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, service->sendDue());
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"mail refused, given up", "attempt=1", "550 5.1.1"}));
    CPPUNIT_ASSERT_EQUAL(0, log.countLines({"will retry"}));
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, transport->delivered().size());
    CPPUNIT_ASSERT_EQUAL(std::string("ann@example.com"), transport->delivered()[0].to);
  }

  // A 451 to the end of the data: past the point, but refused: retried.
  void testRefusalAfterThePointRetried() {
    LogCapture log;
    auto [service, transport] = make();
    transport->plan({Step::RefuseAfter});
    service->send(message());
    service->sendDue();
    CPPUNIT_ASSERT_EQUAL(std::string("queued"), row(onlyId()).str("state"));
    now_ += kSecond;
    service->sendDue();
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, transport->delivered().size());
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"will retry", "attempt=1", "451"}));
  }

  // No answer after the point: the server may have the mail. At most once:
  // it is never tried again, and the log says so.
  void testUnknownOutcomeNeverRetried() {
    LogCapture log;
    auto [service, transport] = make();
    transport->plan({Step::FailAfter});
    service->send(message());
    const std::string id = onlyId();
    service->sendDue();
    now_ += 3600 * kSecond;
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, service->sendDue());
    CPPUNIT_ASSERT_EQUAL(1, transport->attempts());
    CPPUNIT_ASSERT_EQUAL(std::string("unknown"), row(id).str("state"));
    CPPUNIT_ASSERT(row(id).isNull("message_sealed"));
    CPPUNIT_ASSERT_EQUAL(
        1, log.countLines({"level=error", "mail outcome unknown, not sent again", "attempt=1"}));
  }

  // kill -9 during the SMTP exchange, before the final "." (the server took
  // nothing): the next sender - another instance, or this one restarted -
  // sends the mail once its claim's lease ends, and only then.
  void testCrashBeforeThePointSentOnceByTheNextSender() {
    auto [first, firstTransport] = make();
    firstTransport->plan({Step::CrashBefore});
    first->send(message());
    const std::string id = onlyId();
    CPPUNIT_ASSERT_THROW(first->sendDue(), Crash);
    CPPUNIT_ASSERT_EQUAL(std::string("sending"), row(id).str("state"));
    auto [restarted, transport] = make();
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, restarted->sendDue());  // the lease still holds
    now_ += 100 * kSecond + 1;                                   // past the lease
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, restarted->sendDue());
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, transport->delivered().size());
    CPPUNIT_ASSERT_EQUAL(id, transport->delivered()[0].id);
    CPPUNIT_ASSERT_EQUAL(std::string("sent"), row(id).str("state"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, row(id).i64("attempts"));
    now_ += 3600 * kSecond;
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, restarted->sendDue());
  }

  // kill -9 after the final "." went out: the server may have the mail, so
  // the next sender marks it unknown (logged) and never sends it.
  void testCrashAfterThePointNeverSentAgain() {
    LogCapture log;
    auto [first, firstTransport] = make();
    firstTransport->plan({Step::CrashAfter});
    first->send(message());
    const std::string id = onlyId();
    CPPUNIT_ASSERT_THROW(first->sendDue(), Crash);
    CPPUNIT_ASSERT_EQUAL(std::string("delivering"), row(id).str("state"));
    auto [restarted, transport] = make();
    restarted->sendDue();
    CPPUNIT_ASSERT_EQUAL(std::string("delivering"), row(id).str("state"));  // lease holds
    now_ += 100 * kSecond + 1;                                              // past the lease
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, restarted->sendDue());
    CPPUNIT_ASSERT_EQUAL(0, transport->attempts());
    CPPUNIT_ASSERT_EQUAL(std::string("unknown"), row(id).str("state"));
    CPPUNIT_ASSERT(row(id).isNull("message_sealed"));
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"level=error", "mail outcome unknown", "mail_id=" + id,
                                            "not sent again"}));
  }

  // A sender held up past its lease (a frozen process) is taken over; when
  // it wakes up, its point of no return refuses, so only the new holder
  // sends the mail.
  void testSenderTakenOverCannotSend() {
    LogCapture log;
    auto [slow, slowTransport] = make();
    Gate gate;
    slowTransport->beforePoint = [&] { gate.arriveAndWait(); };
    slow->send(message());
    const std::string id = onlyId();
    mail::MailService& heldUp = *slow;
    std::thread held([&heldUp] { heldUp.sendDue(); });
    gate.waitForArrival();
    now_ += 100 * kSecond + 1;  // past the lease
    auto [other, transport] = make();
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, other->sendDue());
    gate.open();
    held.join();
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, slowTransport->delivered().size());
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, transport->delivered().size());
    CPPUNIT_ASSERT_EQUAL(std::string("sent"), row(id).str("state"));
    CPPUNIT_ASSERT_EQUAL(
        1, log.countLines(
               {"mail attempt abandoned: another sender took the mail over", "mail_id=" + id}));
  }

  // Two senders (two instances) drain one outbox at once: every mail is
  // sent exactly once. On PostgreSQL their claims really overlap and SKIP
  // LOCKED decides; on SQLite they take turns.
  void testTwoSendersRacingSendEachMailOnce() {
    constexpr int kMails = 40;
    auto [a, ta] = make();
    auto [b, tb] = make();
    for (int i = 0; i < kMails; ++i) a->send(message("user" + std::to_string(i) + "@example.com"));
    auto slowly = [] { std::this_thread::sleep_for(1ms); };  // an attempt takes a moment
    ta->beforePoint = slowly;
    tb->beforePoint = slowly;
    std::atomic<int> ready{0};
    auto run = [&](mail::MailService& s) {
      ++ready;
      while (ready.load() < 2) std::this_thread::yield();
      s.sendDue();
    };
    mail::MailService& senderA = *a;
    mail::MailService& senderB = *b;
    std::thread first([&] { run(senderA); });
    std::thread second([&] { run(senderB); });
    first.join();
    second.join();
    std::map<std::string, int> times;
    for (const auto& e : ta->delivered()) ++times[e.id];
    for (const auto& e : tb->delivered()) ++times[e.id];
    CPPUNIT_ASSERT_EQUAL(std::size_t{kMails}, times.size());
    for (const auto& [id, n] : times) CPPUNIT_ASSERT_EQUAL_MESSAGE(id, 1, n);
    CPPUNIT_ASSERT_EQUAL(kMails, ta->attempts() + tb->attempts());
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, a->queued());
  }

  void testFinishedMailsPurged() {
    auto [service, transport] = make();
    transport->plan({Step::Deliver, Step::Refuse});
    service->send(message("sent@example.com"));
    service->send(message("failed@example.com"));
    service->sendDue();
    now_ += kSecond;
    service->send(message("waiting@example.com"));
    transport->plan({Step::FailBefore});
    service->sendDue();  // waiting@ waits for its retry
    now_ = kStart + mail::MailService::kKeepFinishedMicros;
    runJob(service->purgeJob());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3},
                         db_->query("SELECT COUNT(*) AS n FROM mail_outbox").front().i64("n"));
    now_ += 1;
    runJob(service->purgeJob());
    const auto left = db_->query("SELECT state FROM mail_outbox");
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, left.size());
    CPPUNIT_ASSERT_EQUAL(std::string("queued"), left.front().str("state"));
  }

  // The host's way: the sender as a job of the JobRunner, woken by send().
  void testTheJobSendsWhatIsQueued() {
    auto [service, transport] = make();
    rapport::host::JobRunner runner;
    service->wakeWith(runner.add(service->sendJob()));
    runner.start();
    service->send(message());
    waitFor([&] { return transport->delivered().size() == 1; }, "the job to send the mail");
    runner.stop();
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, service->queued());
  }

  // The real SMTP transport through the outbox: two 451 answers, then the
  // mail, on the schedule; the log names each step and never the secret.
  void testSmtpThroughTheOutbox() {
    LogCapture log;
    SmtpServer server(SmtpServer::Options().withFailFirst(2));
    mail::MailOptions o = options();
    o.retrySchedule = {0ms, 1s, 1s};
    o.smtp.host = "127.0.0.1";
    o.smtp.port = server.port();
    auto transport = std::make_unique<mail::SmtpTransport>(o.smtp);
    mail::MailService service(o, std::move(transport), *db_, *box_, [this] { return now_.load(); });
    service.send(message());
    service.sendDue();
    now_ += kSecond;
    service.sendDue();
    now_ += kSecond;
    service.sendDue();
    const auto m = server.waitForMessages(1).front();
    CPPUNIT_ASSERT(m.text.find(kCode) != std::string::npos);
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, server.files().size());
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"will retry", "attempt=1", "451"}));
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"will retry", "attempt=2", "451"}));
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"mail sent", "attempt=3", "to_domain=example.com"}));
    CPPUNIT_ASSERT(!log.contains(kCode));
    CPPUNIT_ASSERT(!log.contains(kSubject));
    CPPUNIT_ASSERT(!log.contains("ann@"));
  }

 private:
  static mail::MailOptions options() {
    mail::MailOptions o;
    o.retrySchedule = {0ms, 1s};
    o.lease = 100s;
    return o;
  }

  struct Made {
    std::unique_ptr<mail::MailService> service;
    ScriptedTransport* transport;
  };
  Made make(mail::MailOptions o = options()) {
    auto transport = std::make_unique<ScriptedTransport>();
    ScriptedTransport* raw = transport.get();
    auto service = std::make_unique<mail::MailService>(std::move(o), std::move(transport), *db_,
                                                       *box_, [this] { return now_.load(); });
    return {std::move(service), raw};
  }

  static void runJob(const rapport::Job& job) {
    class Once : public rapport::JobContext {
     public:
      bool stopping() const override { return false; }
      bool wait(std::chrono::milliseconds) override { return true; }
      unsigned worker() const override { return 0; }
    } context;
    job.run(context);
  }

  std::unique_ptr<rapport::host::SqlDatabase> db_;
  std::unique_ptr<rapport::host::AesGcmSecretBox> box_;
  std::atomic<std::int64_t> now_{kStart};
};

CPPUNIT_TEST_SUITE_REGISTRATION(OutboxTest);
