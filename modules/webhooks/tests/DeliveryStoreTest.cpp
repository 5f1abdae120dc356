// The outbox's SQL (modules/webhooks/src/DeliveryStore.cpp) on both engines.
#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "DeliveryStore.h"
#include "WebhookStore.h"
#include "rapport/ids.h"
#include "rapport/time.h"
#include "storage/Migrator.h"
#include "storage/SqlDatabase.h"
#include "support/TestEnv.h"
#include "webhooks_migrations.gen.h"

namespace {

using rapport::webhooks::AttemptRecord;
using rapport::webhooks::ClaimedDelivery;
using rapport::webhooks::ClaimPolicy;
using rapport::webhooks::NewDelivery;
namespace delivery_store = rapport::webhooks::delivery_store;
namespace webhook_store = rapport::webhooks::webhook_store;

constexpr std::int64_t kSecond = 1000000;

}  // namespace

class DeliveryStoreTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(DeliveryStoreTest);
  CPPUNIT_TEST(testClaimTakesDueDeliveriesOnly);
  CPPUNIT_TEST(testResultIsWrittenOnlyUnderItsLease);
  CPPUNIT_TEST(testBatchRecordWritesEveryAttempt);
  CPPUNIT_TEST(testPendingResultOfAnInactiveWebhookIsUnscheduled);
  CPPUNIT_TEST(testManualRetryClaimsFailedDeliveriesOnly);
  CPPUNIT_TEST(testConcurrentClaimsNeverTakeADeliveryTwice);
  CPPUNIT_TEST(testPauseResumeAndDelete);
  CPPUNIT_TEST(testPurgeAndAbandonedPings);
  CPPUNIT_TEST(testAnEmitterWaitsForAnEnableAndSeesIt);
  CPPUNIT_TEST(testClaimServesCompaniesInTurn);
  CPPUNIT_TEST(testFreshDeliveriesBeforeBacklog);
  CPPUNIT_TEST(testBatchesInFlightAreCapped);
  CPPUNIT_TEST(testConcurrentClaimsKeepTheCaps);
  CPPUNIT_TEST(testOpenCircuitDefersWithoutAnAttempt);
  CPPUNIT_TEST_SUITE_END();

 public:
  static rapport::host::SqlDatabase& db() {
    static std::unique_ptr<rapport::host::SqlDatabase> db = [] {
      rapport::host::StorageOptions options;
      options.url = rapport::test::freshDatabaseUrl("webhooks_core");
      auto opened = rapport::host::SqlDatabase::open(options);
      rapport::host::Migrator(*opened).apply(
          {{"webhooks", rapport_generated::webhooks::migrations()}});
      return opened;
    }();
    return *db;
  }

  // Each test works in a tenant of its own, and starts with no due delivery
  // anywhere (the claims read across tenants).
  void setUp() override {
    tenant_ = rapport::newId("comp_");
    db().exec("DELETE FROM webhook_deliveries");
  }

  std::string createWebhook(bool active = true) { return createWebhookOf(tenant_, active); }

  static std::string createWebhookOf(const std::string& tenant, bool active = true) {
    const std::string id = rapport::newId("whk_");
    db().transaction(tenant, [&](rapport::Tx& tx) {
      webhook_store::insert(
          tx, id,
          {.url = "https://example.com/hook", .events = {"crm.contact.created"}, .active = active},
          "sealed", rapport::nowMicros());
    });
    return id;
  }

  // A pending delivery; `next` none: unscheduled.
  std::string addDelivery(const std::string& webhookId, std::optional<std::int64_t> next,
                          std::optional<std::string> eventId = std::string("evt_log1")) {
    return addDeliveryOf(tenant_, webhookId, next, eventId);
  }

  static std::string addDeliveryOf(const std::string& tenant, const std::string& webhookId,
                                   std::optional<std::int64_t> next,
                                   std::optional<std::string> eventId = std::string("evt_log1"),
                                   bool backlog = false) {
    NewDelivery d{.id = rapport::newId("whd_"),
                  .webhookId = webhookId,
                  .envelopeId = rapport::newId("evt_"),
                  .event = eventId ? "crm.contact.created" : "webhook.ping",
                  .eventId = eventId,
                  .payload = "{}",
                  .createdAt = rapport::nowMicros(),
                  .nextAttemptAt = next,
                  .lease = std::nullopt,
                  .leaseUntil = std::nullopt,
                  .backlog = backlog};
    db().transaction(tenant, [&](rapport::Tx& tx) { delivery_store::insert(tx, d); });
    return d.id;
  }

  void setColumns(const std::string& id, const std::string& assignments, rapport::Params params) {
    params.emplace_back(tenant_);
    params.emplace_back(id);
    db().exec("UPDATE webhook_deliveries SET " + assignments + " WHERE company_id = ? AND id = ?",
              params);
  }

  rapport::Row row(const std::string& id) { return row(id, tenant_); }

  static rapport::Row row(const std::string& id, const std::string& tenant) {
    return db()
        .query(
            "SELECT status, attempts, next_attempt_at, lease, lease_until, response_code "
            "FROM webhook_deliveries WHERE company_id = ? AND id = ?",
            {tenant, id})
        .front();
  }

  static std::vector<ClaimedDelivery> claim(std::int64_t now, const std::string& lease,
                                            int limit = 16) {
    return delivery_store::claimDue(db(), now, lease, now + 30 * kSecond, limit);
  }

  static std::vector<ClaimedDelivery> claimWith(std::int64_t now, const std::string& lease,
                                                int limit, const ClaimPolicy& policy) {
    return delivery_store::claimDue(db(), now, lease, now + 30 * kSecond, limit, policy);
  }

  static std::set<std::string> companiesOf(const std::vector<ClaimedDelivery>& claimed) {
    std::set<std::string> companies;
    for (const auto& d : claimed) companies.insert(d.companyId);
    return companies;
  }

  static std::set<std::string> idsOf(const std::vector<ClaimedDelivery>& claimed) {
    std::set<std::string> ids;
    for (const auto& d : claimed) ids.insert(d.id);
    return ids;
  }

  static AttemptRecord failedAttempt(std::optional<std::int64_t> next) {
    return {.status = next ? "pending" : "failed",
            .responseCode = 500,
            .responseBody = std::string("boom"),
            .attemptedAt = rapport::nowMicros(),
            .nextAttemptAt = next};
  }

  void testClaimTakesDueDeliveriesOnly() {
    const std::int64_t now = rapport::nowMicros();
    const std::string webhook = createWebhook();
    const std::string due = addDelivery(webhook, now - kSecond);
    const std::string dueNow = addDelivery(webhook, now);
    addDelivery(webhook, now + 60 * kSecond);  // later
    addDelivery(webhook, std::nullopt);        // unscheduled (paused, manual)
    const std::string held = addDelivery(webhook, now - kSecond);
    setColumns(held, "lease = ?, lease_until = ?", {"other", now + 10 * kSecond});
    const std::string expired = addDelivery(webhook, now - kSecond);
    setColumns(expired, "lease = ?, lease_until = ?", {"dead", now - 1});
    const std::string done = addDelivery(webhook, now - kSecond);
    setColumns(done, "status = 'failed'", {});

    CPPUNIT_ASSERT(delivery_store::anyDue(db(), now));
    const auto claimed = claim(now, "mine");
    CPPUNIT_ASSERT((idsOf(claimed) == std::set<std::string>{due, dueNow, expired}));
    CPPUNIT_ASSERT(!delivery_store::anyDue(db(), now));
    for (const auto& d : claimed) {
      CPPUNIT_ASSERT_EQUAL(tenant_, d.companyId);
      CPPUNIT_ASSERT_EQUAL(webhook, d.webhookId);
      CPPUNIT_ASSERT_EQUAL(std::string("mine"), d.lease);
      CPPUNIT_ASSERT_EQUAL(std::string("mine"), row(d.id).str("lease"));
    }
    // Held now: a second claim takes nothing.
    CPPUNIT_ASSERT(claim(now, "again").empty());
    // The limit holds, oldest due first.
    setColumns(due, "lease = NULL, lease_until = NULL", {});
    setColumns(dueNow, "lease = NULL, lease_until = NULL", {});
    const auto one = claim(now, "one", 1);
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), one.size());
    CPPUNIT_ASSERT_EQUAL(due, one.front().id);
  }

  void testResultIsWrittenOnlyUnderItsLease() {
    const std::int64_t now = rapport::nowMicros();
    const std::string webhook = createWebhook();
    const std::string id = addDelivery(webhook, now);
    auto claimed = claim(now, "first");
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), claimed.size());
    ClaimedDelivery stale = claimed.front();
    stale.lease = "someone-else";
    db().transaction("", [&](rapport::Tx& tx) {
      CPPUNIT_ASSERT(!delivery_store::record(tx, stale, failedAttempt(now + kSecond)));
    });
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), row(id).i64("attempts"));

    const std::int64_t next = now + 60 * kSecond;
    db().transaction("", [&](rapport::Tx& tx) {
      const auto written = delivery_store::record(tx, claimed.front(), failedAttempt(next));
      CPPUNIT_ASSERT(written);
      CPPUNIT_ASSERT_EQUAL(std::string("pending"), written->str("status"));
      CPPUNIT_ASSERT_EQUAL(std::int64_t(1), written->i64("attempts"));
      CPPUNIT_ASSERT_EQUAL(std::int64_t(500), written->i64("response_code"));
    });
    const rapport::Row after = row(id);
    CPPUNIT_ASSERT_EQUAL(next, after.i64("next_attempt_at"));
    CPPUNIT_ASSERT(after.isNull("lease"));
    CPPUNIT_ASSERT(after.isNull("lease_until"));
    // Written once: the same lease cannot write twice.
    db().transaction("", [&](rapport::Tx& tx) {
      CPPUNIT_ASSERT(!delivery_store::record(tx, claimed.front(), failedAttempt(std::nullopt)));
    });
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), row(id).i64("attempts"));
  }

  // A worker's batch is recorded in one statement (recordAll): every
  // attempt is written as record() writes it, each under its own lease,
  // whatever the order of the attempts and the text of the answers.
  void testBatchRecordWritesEveryAttempt() {
    const std::int64_t now = rapport::nowMicros();
    const std::string active = createWebhook();
    const std::string paused = createWebhook(/*active=*/false);
    const std::string ok = addDelivery(active, now - 5);
    const std::string retry = addDelivery(active, now - 4);
    const std::string unscheduled = addDelivery(paused, now - 3);
    const std::string stale = addDelivery(active, now - 2);
    const std::string silent = addDelivery(active, now - 1);
    const auto claimed = claim(now, "batch");
    CPPUNIT_ASSERT_EQUAL(std::size_t(5), claimed.size());
    const auto of = [&](const std::string& id) {
      return *std::find_if(claimed.begin(), claimed.end(),
                           [&](const ClaimedDelivery& d) { return d.id == id; });
    };
    ClaimedDelivery lost = of(stale);
    lost.lease = "someone-else";
    const std::string body = "\"quoted\" \\ back\nline \xc3\xa9 {\"json\": [1]}";
    const std::int64_t next = now + 60 * kSecond;
    const AttemptRecord success{.status = "success",
                                .responseCode = 204,
                                .responseBody = body,
                                .attemptedAt = now + 1,
                                .nextAttemptAt = std::nullopt};
    const AttemptRecord noAnswer{.status = "failed",
                                 .responseCode = std::nullopt,
                                 .responseBody = std::nullopt,
                                 .attemptedAt = now + 2,
                                 .nextAttemptAt = std::nullopt};
    const ClaimedDelivery okClaim = of(ok), retryClaim = of(retry),
                          unscheduledClaim = of(unscheduled), silentClaim = of(silent);
    // Not in the claim's order.
    const std::vector<delivery_store::AttemptOf> attempts = {
        {.delivery = &silentClaim, .result = noAnswer},
        {.delivery = &lost, .result = failedAttempt(next)},
        {.delivery = &okClaim, .result = success},
        {.delivery = &unscheduledClaim, .result = failedAttempt(next)},
        {.delivery = &retryClaim, .result = failedAttempt(next)}};
    std::vector<std::optional<rapport::Row>> written;
    db().transaction("",
                     [&](rapport::Tx& tx) { written = delivery_store::recordAll(tx, attempts); });
    CPPUNIT_ASSERT_EQUAL(attempts.size(), written.size());
    CPPUNIT_ASSERT(!written[1]);  // its lease was lost: nothing written
    const std::vector<std::pair<std::size_t, std::string>> expected = {
        {0, silent}, {2, ok}, {3, unscheduled}, {4, retry}};
    for (const auto& [index, id] : expected) {
      CPPUNIT_ASSERT_MESSAGE(id, written[index].has_value());
      CPPUNIT_ASSERT_EQUAL(id, written[index]->str("id"));
      CPPUNIT_ASSERT_EQUAL(std::int64_t(1), written[index]->i64("attempts"));
    }
    CPPUNIT_ASSERT_EQUAL(std::string("success"), written[2]->str("status"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(204), written[2]->i64("response_code"));
    CPPUNIT_ASSERT_EQUAL(now + 1, written[2]->i64("last_attempt_at"));

    // The rows as the API reads them.
    const rapport::Row okRow = db().query(
                                       "SELECT status, attempts, response_code, response_body, "
                                       "last_attempt_at, lease, lease_until, next_attempt_at "
                                       "FROM webhook_deliveries WHERE company_id = ? AND id = ?",
                                       {tenant_, ok})
                                   .front();
    CPPUNIT_ASSERT_EQUAL(std::string("success"), okRow.str("status"));
    CPPUNIT_ASSERT_EQUAL(body, okRow.str("response_body"));
    CPPUNIT_ASSERT_EQUAL(now + 1, okRow.i64("last_attempt_at"));
    CPPUNIT_ASSERT(okRow.isNull("lease"));
    CPPUNIT_ASSERT(okRow.isNull("lease_until"));
    CPPUNIT_ASSERT(okRow.isNull("next_attempt_at"));
    const rapport::Row retryRow = row(retry);
    CPPUNIT_ASSERT_EQUAL(std::string("pending"), retryRow.str("status"));
    CPPUNIT_ASSERT_EQUAL(next, retryRow.i64("next_attempt_at"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(500), retryRow.i64("response_code"));
    CPPUNIT_ASSERT(retryRow.isNull("lease"));
    // A paused webhook's retry stays pending, unscheduled.
    CPPUNIT_ASSERT_EQUAL(std::string("pending"), row(unscheduled).str("status"));
    CPPUNIT_ASSERT(row(unscheduled).isNull("next_attempt_at"));
    // No answer: no code, no body.
    const rapport::Row silentRow = row(silent);
    CPPUNIT_ASSERT_EQUAL(std::string("failed"), silentRow.str("status"));
    CPPUNIT_ASSERT(silentRow.isNull("response_code"));
    // The lost lease's delivery is untouched, still held by its claim.
    const rapport::Row staleRow = row(stale);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), staleRow.i64("attempts"));
    CPPUNIT_ASSERT_EQUAL(std::string("batch"), staleRow.str("lease"));
    // An empty batch writes nothing.
    db().transaction(
        "", [&](rapport::Tx& tx) { CPPUNIT_ASSERT(delivery_store::recordAll(tx, {}).empty()); });
  }

  void testPendingResultOfAnInactiveWebhookIsUnscheduled() {
    const std::int64_t now = rapport::nowMicros();
    const std::string webhook = createWebhook(/*active=*/false);
    const std::string id = addDelivery(webhook, now);
    const auto claimed = claim(now, "lease");
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), claimed.size());
    db().transaction("", [&](rapport::Tx& tx) {
      CPPUNIT_ASSERT(delivery_store::record(tx, claimed.front(), failedAttempt(now + kSecond)));
    });
    const rapport::Row after = row(id);
    CPPUNIT_ASSERT_EQUAL(std::string("pending"), after.str("status"));
    CPPUNIT_ASSERT(after.isNull("next_attempt_at"));
  }

  void testManualRetryClaimsFailedDeliveriesOnly() {
    const std::int64_t now = rapport::nowMicros();
    const std::string webhook = createWebhook();
    const std::string pending = addDelivery(webhook, std::nullopt);
    const std::string failed = addDelivery(webhook, std::nullopt);
    setColumns(failed, "status = 'failed', attempts = 6", {});
    const std::string success = addDelivery(webhook, std::nullopt);
    setColumns(success, "status = 'success', attempts = 1", {});
    auto claimFailed = [&](const std::string& webhookId, const std::string& id,
                           const std::string& lease) {
      return delivery_store::claimFailed(db(), tenant_, webhookId, id, now, lease,
                                         now + 30 * kSecond);
    };
    CPPUNIT_ASSERT(!claimFailed(webhook, pending, "a"));
    CPPUNIT_ASSERT(!claimFailed(webhook, success, "a"));
    CPPUNIT_ASSERT(!claimFailed(createWebhook(), failed, "a"));  // another webhook's
    const auto claimed = claimFailed(webhook, failed, "a");
    CPPUNIT_ASSERT(claimed);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(6), claimed->attempts);
    // While held, a second retry cannot take it.
    CPPUNIT_ASSERT(!claimFailed(webhook, failed, "b"));
    CPPUNIT_ASSERT_EQUAL(std::string("failed"), row(failed).str("status"));
    db().transaction("", [&](rapport::Tx& tx) {
      AttemptRecord ok{.status = "success",
                       .responseCode = 204,
                       .responseBody = std::string(),
                       .attemptedAt = now,
                       .nextAttemptAt = std::nullopt};
      const auto written = delivery_store::record(tx, *claimed, ok);
      CPPUNIT_ASSERT(written);
      CPPUNIT_ASSERT_EQUAL(std::int64_t(7), written->i64("attempts"));
    });
    CPPUNIT_ASSERT_EQUAL(std::string("success"), row(failed).str("status"));
    CPPUNIT_ASSERT(row(failed).isNull("next_attempt_at"));
  }

  // Six claimers on their own threads (pooled sessions) drain 240 due
  // deliveries: each is taken exactly once. On PostgreSQL concurrent claims
  // really overlap (SKIP LOCKED decides); on SQLite they take turns.
  void testConcurrentClaimsNeverTakeADeliveryTwice() {
    const std::int64_t now = rapport::nowMicros();
    const std::string webhook = createWebhook();
    std::set<std::string> all;
    db().transaction(tenant_, [&](rapport::Tx& tx) {
      for (int i = 0; i < 240; ++i) {
        NewDelivery d{.id = rapport::newId("whd_"),
                      .webhookId = webhook,
                      .envelopeId = rapport::newId("evt_"),
                      .event = "crm.contact.created",
                      .eventId = "evt_log" + std::to_string(i + 1),
                      .payload = "{}",
                      .createdAt = now,
                      .nextAttemptAt = now - i,
                      .lease = std::nullopt,
                      .leaseUntil = std::nullopt};
        delivery_store::insert(tx, d);
        all.insert(d.id);
      }
    });
    std::mutex mutex;
    std::vector<std::string> taken;
    std::vector<std::thread> claimers;
    for (int t = 0; t < 6; ++t) {
      claimers.emplace_back([&, t] {
        for (;;) {
          const auto batch = claim(now, "claimer-" + std::to_string(t), 7);
          if (batch.empty()) return;
          std::lock_guard<std::mutex> lock(mutex);
          for (const auto& d : batch) taken.push_back(d.id);
        }
      });
    }
    for (auto& claimer : claimers) claimer.join();
    CPPUNIT_ASSERT_EQUAL(all.size(), taken.size());
    CPPUNIT_ASSERT((std::set<std::string>(taken.begin(), taken.end()) == all));
  }

  void testPauseResumeAndDelete() {
    const std::int64_t now = rapport::nowMicros();
    const std::string webhook = createWebhook();
    const std::string pending = addDelivery(webhook, now + kSecond);
    const std::string ping = addDelivery(webhook, std::nullopt, std::nullopt);
    const std::string done = addDelivery(webhook, std::nullopt);
    setColumns(done, "status = 'success'", {});
    db().transaction(tenant_, [&](rapport::Tx& tx) { delivery_store::pause(tx, webhook); });
    CPPUNIT_ASSERT(row(pending).isNull("next_attempt_at"));
    db().transaction(tenant_, [&](rapport::Tx& tx) { delivery_store::resume(tx, webhook, now); });
    CPPUNIT_ASSERT_EQUAL(now, row(pending).i64("next_attempt_at"));
    CPPUNIT_ASSERT_MESSAGE("a ping is never scheduled", row(ping).isNull("next_attempt_at"));
    CPPUNIT_ASSERT_MESSAGE("a finished delivery is never scheduled",
                           row(done).isNull("next_attempt_at"));

    db().transaction(tenant_, [&](rapport::Tx& tx) {
      CPPUNIT_ASSERT(webhook_store::remove(tx, webhook));
      delivery_store::removeOfWebhook(tx, webhook);
    });
    CPPUNIT_ASSERT(!webhook_store::find(db(), tenant_, webhook));
    CPPUNIT_ASSERT(claim(now + kSecond, "after").empty());
    CPPUNIT_ASSERT(
        db().query("SELECT id FROM webhook_deliveries WHERE company_id = ?", {tenant_}).empty());
  }

  // The backfill race (WebhookStore.cpp subscribedActive): an enable holds
  // the webhook's row, uncommitted, while a transaction emits an event the
  // webhook subscribes to. The emitter's fan-out must wait for the enable
  // and then see the webhook active; a plain read would see it inactive,
  // and the enable's backfill, which read the log before, would miss the
  // event too. SQLite serialises writers: the race cannot happen there.
  void testAnEmitterWaitsForAnEnableAndSeesIt() {
    if (!rapport::test::onPostgres()) return;
    const std::string webhook = createWebhook(false);
    std::promise<void> enabledPromise;
    std::promise<void> releasePromise;
    std::shared_future<void> release = releasePromise.get_future().share();
    std::thread enable([&] {
      db().transaction(tenant_, [&](rapport::Tx& tx) {
        tx.exec("UPDATE webhooks SET is_active = ? WHERE company_id = ? AND id = ?",
                {true, tenant_, webhook});
        enabledPromise.set_value();
        release.wait();
      });
    });
    enabledPromise.get_future().wait();
    std::atomic<bool> emitted{false};
    std::vector<std::string> seen;
    std::thread emitter([&] {
      db().transaction(tenant_, [&](rapport::Tx& tx) {
        seen = webhook_store::subscribedActive(tx, "crm.contact.created");
      });
      emitted = true;
    });
    // Until the emitter either waits for the enable's lock or is done.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!emitted && !emitterWaitsForALock() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
    const bool waited = !emitted;
    releasePromise.set_value();
    enable.join();
    emitter.join();
    CPPUNIT_ASSERT_MESSAGE("the fan-out did not wait for the enable", waited);
    CPPUNIT_ASSERT(seen == std::vector<std::string>{webhook});
  }

  void testPurgeAndAbandonedPings() {
    const std::int64_t now = rapport::nowMicros();
    const std::string webhook = createWebhook();
    const std::string oldDone = addDelivery(webhook, std::nullopt);
    setColumns(oldDone, "status = 'success', created_at = ?", {now - 40 * 86400 * kSecond});
    const std::string oldPending = addDelivery(webhook, now + kSecond);
    setColumns(oldPending, "created_at = ?", {now - 40 * 86400 * kSecond});
    const std::string recentDone = addDelivery(webhook, std::nullopt);
    setColumns(recentDone, "status = 'failed'", {});
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1),
                         delivery_store::purgeFinished(db(), now - 30 * 86400 * kSecond, 100));
    CPPUNIT_ASSERT(!delivery_store::find(db(), tenant_, webhook, oldDone));
    CPPUNIT_ASSERT(delivery_store::find(db(), tenant_, webhook, oldPending));
    CPPUNIT_ASSERT(delivery_store::find(db(), tenant_, webhook, recentDone));

    const std::string livePing = addDelivery(webhook, std::nullopt, std::nullopt);
    setColumns(livePing, "lease = 'p', lease_until = ?", {now + 10 * kSecond});
    const std::string deadPing = addDelivery(webhook, std::nullopt, std::nullopt);
    setColumns(deadPing, "lease = 'p', lease_until = ?", {now - 1});
    const std::string paused = addDelivery(webhook, std::nullopt);
    setColumns(paused, "lease = 'w', lease_until = ?", {now - 1});
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), delivery_store::failAbandonedPings(db(), now));
    CPPUNIT_ASSERT_EQUAL(std::string("failed"), row(deadPing).str("status"));
    CPPUNIT_ASSERT_EQUAL(std::string("pending"), row(livePing).str("status"));
    CPPUNIT_ASSERT_EQUAL(std::string("pending"), row(paused).str("status"));
  }

  // Round robin: each claim takes one company's deliveries, the first
  // company after the cursor (then from the start), whatever the others'
  // backlog: a company with 20 old deliveries does not go before the others
  // twice in a row.
  void testClaimServesCompaniesInTurn() {
    const std::int64_t now = rapport::nowMicros();
    const std::string prefix = rapport::newId("comp_");
    const std::string a = prefix + "a", b = prefix + "b", c = prefix + "c";
    const std::string hookA = createWebhookOf(a), hookB = createWebhookOf(b),
                      hookC = createWebhookOf(c);
    for (int i = 0; i < 20; ++i) addDeliveryOf(a, hookA, now - 100 * kSecond + i);
    const std::string fromB = addDeliveryOf(b, hookB, now - kSecond);
    const std::string fromC = addDeliveryOf(c, hookC, now);

    ClaimPolicy policy;
    policy.after = b;  // served last: c comes next, then a, then b
    std::vector<std::string> served;
    std::size_t taken = 0;
    for (int round = 0; round < 5; ++round) {
      const auto batch = claimWith(now, "lease" + std::to_string(round), 16, policy);
      if (batch.empty()) break;
      CPPUNIT_ASSERT_EQUAL(std::size_t(1), companiesOf(batch).size());
      served.push_back(batch.front().companyId);
      policy.after = batch.front().companyId;
      taken += batch.size();
    }
    CPPUNIT_ASSERT((served == std::vector<std::string>{c, a, b, a}));
    CPPUNIT_ASSERT_EQUAL(std::size_t(22), taken);
    CPPUNIT_ASSERT(!row(fromB, b).isNull("lease"));
    CPPUNIT_ASSERT(!row(fromC, c).isNull("lease"));
  }

  // Replay and backfill deliveries (backlog) wait behind the company's
  // fresh ones, even when they were due first.
  void testFreshDeliveriesBeforeBacklog() {
    const std::int64_t now = rapport::nowMicros();
    const std::string webhook = createWebhook();
    const std::string old1 = addDeliveryOf(tenant_, webhook, now - 60 * kSecond, "evt_log1", true);
    const std::string old2 = addDeliveryOf(tenant_, webhook, now - 59 * kSecond, "evt_log2", true);
    const std::string fresh = addDeliveryOf(tenant_, webhook, now, "evt_log3");
    const auto first = claimWith(now, "one", 1, {});
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), first.size());
    CPPUNIT_ASSERT_EQUAL(fresh, first.front().id);
    const auto rest = claimWith(now, "two", 16, {});
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), rest.size());
    CPPUNIT_ASSERT_EQUAL(old1, rest[0].id);  // the backlog in its own order
    CPPUNIT_ASSERT_EQUAL(old2, rest[1].id);
  }

  // A company holds at most perCompany batches (leases) at once, a webhook
  // perTarget: beyond, the claim serves another company, or nothing.
  // Claims made at the same instant by many workers (or instances) keep the
  // caps: on PostgreSQL each once counted the batches the others were
  // leasing as free, so a company could take every worker (issue 21's
  // fairness test saw another company's delivery wait one whole time-out).
  void testConcurrentClaimsKeepTheCaps() {
    const std::int64_t now = rapport::nowMicros();
    const std::string a = rapport::newId("comp_");
    std::vector<std::string> hooks;
    for (int h = 0; h < 6; ++h) {
      hooks.push_back(createWebhookOf(a));
      for (int i = 0; i < 4; ++i) addDeliveryOf(a, hooks.back(), now - 10 * kSecond + i);
    }
    const ClaimPolicy policy{.after = {}, .perCompany = 2, .perTarget = 1};
    for (int round = 0; round < 5; ++round) {
      std::atomic<int> ready{0};
      std::mutex mutex;
      std::vector<std::vector<ClaimedDelivery>> batches;
      std::vector<std::thread> claimers;
      for (int t = 0; t < 8; ++t) {
        claimers.emplace_back([&, t] {
          // Every claimer starts at once.
          ++ready;
          while (ready.load() < 8) std::this_thread::yield();
          auto batch =
              claimWith(now, "r" + std::to_string(round) + "-" + std::to_string(t), 2, policy);
          std::lock_guard<std::mutex> lock(mutex);
          if (!batch.empty()) batches.push_back(std::move(batch));
        });
      }
      for (auto& claimer : claimers) claimer.join();
      CPPUNIT_ASSERT_EQUAL_MESSAGE("round " + std::to_string(round), std::size_t(2),
                                   batches.size());
      CPPUNIT_ASSERT(batches[0].front().webhookId != batches[1].front().webhookId);
      for (const auto& batch : batches) {
        for (const auto& d : batch) delivery_store::release(db(), d);
      }
    }
  }

  void testBatchesInFlightAreCapped() {
    const std::int64_t now = rapport::nowMicros();
    const std::string prefix = rapport::newId("comp_");
    const std::string a = prefix + "a", b = prefix + "b";
    const std::string hook1 = createWebhookOf(a), hook2 = createWebhookOf(a),
                      hook3 = createWebhookOf(a), other = createWebhookOf(b);
    for (int i = 0; i < 5; ++i) {
      addDeliveryOf(a, hook1, now - 100 * kSecond + i);
      addDeliveryOf(a, hook2, now - 50 * kSecond + i);
      addDeliveryOf(a, hook3, now - 20 * kSecond + i);
    }
    const std::string fromB = addDeliveryOf(b, other, now);
    const ClaimPolicy policy{.after = {}, .perCompany = 2, .perTarget = 1};

    // The first batch takes webhook 1's oldest (one lease counts once).
    const auto first = claimWith(now, "l1", 3, policy);
    CPPUNIT_ASSERT_EQUAL(std::size_t(3), first.size());
    for (const auto& d : first) CPPUNIT_ASSERT_EQUAL(hook1, d.webhookId);
    // Webhook 1 is at its cap: the next batch of company a goes to webhook 2.
    const auto second = claimWith(now, "l2", 3, policy);
    CPPUNIT_ASSERT_EQUAL(std::size_t(3), second.size());
    for (const auto& d : second) CPPUNIT_ASSERT_EQUAL(hook2, d.webhookId);
    // Company a holds two batches: company b is served, then nothing.
    const auto third = claimWith(now, "l3", 3, policy);
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), third.size());
    CPPUNIT_ASSERT_EQUAL(fromB, third.front().id);
    CPPUNIT_ASSERT(claimWith(now, "l4", 3, policy).empty());
    // Batch 1 ends: company a may take one more batch: webhook 1's five
    // (oldest) and webhook 3's, none of webhook 2 (still held).
    for (const auto& d : first) delivery_store::release(db(), d);
    const auto fourth = claimWith(now, "l5", 16, policy);
    CPPUNIT_ASSERT_EQUAL(std::size_t(10), fourth.size());
    for (std::size_t i = 0; i < fourth.size(); ++i)
      CPPUNIT_ASSERT_EQUAL(i < 5 ? hook1 : hook3, fourth[i].webhookId);
    // An expired lease no longer counts.
    CPPUNIT_ASSERT(claimWith(now, "l6", 3, policy).empty());
    const auto later = claimWith(now + 31 * kSecond, "l7", 16, policy);
    CPPUNIT_ASSERT(!later.empty());
  }

  // The circuit breaker's deferral: the held delivery and the webhook's
  // other due ones move to the circuit's end, nothing counted; a delivery
  // held by another batch is left to it.
  void testOpenCircuitDefersWithoutAnAttempt() {
    const std::int64_t now = rapport::nowMicros();
    const std::string webhook = createWebhook();
    const std::string otherWebhook = createWebhook();
    const std::string mine = addDelivery(webhook, now - 3 * kSecond);
    const auto claimed = claim(now, "mine");
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), claimed.size());
    const std::string due = addDelivery(webhook, now - kSecond);
    const std::string later = addDelivery(webhook, now + 600 * kSecond);
    const std::string held = addDelivery(webhook, now - kSecond);
    setColumns(held, "lease = ?, lease_until = ?", {"other", now + 10 * kSecond});
    const std::string apart = addDelivery(otherWebhook, now - kSecond);
    // A delivery in its retry schedule keeps it: its retries probe the target.
    const std::string retrying = addDelivery(webhook, now - kSecond);
    setColumns(retrying, "attempts = ?", {std::int64_t{2}});
    const std::int64_t until = now + 60 * kSecond;

    delivery_store::defer(db(), claimed.front(), until);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1),
                         delivery_store::deferWebhook(db(), tenant_, webhook, until, now));
    CPPUNIT_ASSERT_EQUAL(until, row(mine).i64("next_attempt_at"));
    CPPUNIT_ASSERT(row(mine).isNull("lease"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), row(mine).i64("attempts"));
    CPPUNIT_ASSERT_EQUAL(std::string("pending"), row(mine).str("status"));
    CPPUNIT_ASSERT_EQUAL(until, row(due).i64("next_attempt_at"));
    CPPUNIT_ASSERT_EQUAL(now + 600 * kSecond, row(later).i64("next_attempt_at"));
    CPPUNIT_ASSERT_EQUAL(now - kSecond, row(held).i64("next_attempt_at"));
    CPPUNIT_ASSERT_EQUAL(now - kSecond, row(apart).i64("next_attempt_at"));
    CPPUNIT_ASSERT_EQUAL(now - kSecond, row(retrying).i64("next_attempt_at"));
  }

 private:
  // PostgreSQL: whether a session of this database waits for a row lock.
  static bool emitterWaitsForALock() {
    return !db().query(
                    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                    "AND wait_event_type = 'Lock'")
                .empty();
  }

  std::string tenant_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(DeliveryStoreTest);
