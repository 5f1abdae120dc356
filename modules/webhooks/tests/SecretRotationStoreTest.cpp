// The stored side of a secret rotation (WebhookStore rotateSecret, target,
// forgetExpiredSecrets) on both engines: the replaced sealed secret moves
// to previous_secret as it is, is returned while its overlap lasts, a PATCH
// of the secret ends the overlap, and the sweep clears only ended ones.
#include <cppunit/extensions/HelperMacros.h>

#include <memory>
#include <optional>
#include <string>

#include "WebhookStore.h"
#include "rapport/ids.h"
#include "rapport/time.h"
#include "storage/Migrator.h"
#include "storage/SqlDatabase.h"
#include "support/TestEnv.h"
#include "webhooks_migrations.gen.h"

namespace {

namespace webhook_store = rapport::webhooks::webhook_store;

constexpr std::int64_t kOneSecond = 1000000;

}  // namespace

class SecretRotationStoreTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(SecretRotationStoreTest);
  CPPUNIT_TEST(testPreviousSecretSignsUntilItsOverlapEnds);
  CPPUNIT_TEST(testASecondRotationDropsTheFirstSecret);
  CPPUNIT_TEST(testNoOverlapAndPatchDropThePreviousSecret);
  CPPUNIT_TEST(testSweepClearsEndedOverlapsOnly);
  CPPUNIT_TEST_SUITE_END();

 public:
  static rapport::host::SqlDatabase& db() {
    static std::unique_ptr<rapport::host::SqlDatabase> db = [] {
      rapport::host::StorageOptions options;
      options.url = rapport::test::freshDatabaseUrl("webhooks_rotation");
      auto opened = rapport::host::SqlDatabase::open(options);
      rapport::host::Migrator(*opened).apply(
          {{"webhooks", rapport_generated::webhooks::migrations()}});
      return opened;
    }();
    return *db;
  }

  void setUp() override { tenant_ = rapport::newId("comp_"); }

  void testPreviousSecretSignsUntilItsOverlapEnds() {
    const std::string id = createWebhook("sealed-one");
    const std::int64_t now = rapport::nowMicros();
    rotate(id, "sealed-two", now + 60 * kOneSecond);
    const auto during = webhook_store::target(db(), tenant_, id, now);
    CPPUNIT_ASSERT(during.has_value());
    CPPUNIT_ASSERT_EQUAL(std::string("sealed-two"), during->sealedSecret);
    CPPUNIT_ASSERT(during->sealedPreviousSecret.has_value());
    CPPUNIT_ASSERT_EQUAL(std::string("sealed-one"), *during->sealedPreviousSecret);
    // At the end of the overlap, and after it, the new secret alone.
    const auto after = webhook_store::target(db(), tenant_, id, now + 60 * kOneSecond);
    CPPUNIT_ASSERT_EQUAL(std::string("sealed-two"), after->sealedSecret);
    CPPUNIT_ASSERT(!after->sealedPreviousSecret.has_value());
    // Another tenant sees nothing.
    CPPUNIT_ASSERT(!webhook_store::target(db(), rapport::newId("comp_"), id, now).has_value());
  }

  void testASecondRotationDropsTheFirstSecret() {
    const std::string id = createWebhook("sealed-one");
    const std::int64_t now = rapport::nowMicros();
    rotate(id, "sealed-two", now + 60 * kOneSecond);
    rotate(id, "sealed-three", now + 120 * kOneSecond);
    const auto target = webhook_store::target(db(), tenant_, id, now);
    CPPUNIT_ASSERT_EQUAL(std::string("sealed-three"), target->sealedSecret);
    CPPUNIT_ASSERT_EQUAL(std::string("sealed-two"), *target->sealedPreviousSecret);
    // The second rotation's overlap counts.
    CPPUNIT_ASSERT(
        webhook_store::target(db(), tenant_, id, now + 90 * kOneSecond)->sealedPreviousSecret);
  }

  void testNoOverlapAndPatchDropThePreviousSecret() {
    const std::string id = createWebhook("sealed-one");
    const std::int64_t now = rapport::nowMicros();
    rotate(id, "sealed-two", std::nullopt);
    CPPUNIT_ASSERT(!webhook_store::target(db(), tenant_, id, now)->sealedPreviousSecret);

    rotate(id, "sealed-three", now + 60 * kOneSecond);
    CPPUNIT_ASSERT(webhook_store::target(db(), tenant_, id, now)->sealedPreviousSecret);
    db().transaction(tenant_, [&](rapport::Tx& tx) {
      const auto row = webhook_store::find(tx, tenant_, id);
      const auto webhook = webhook_store::fromRow(*row);
      webhook_store::update(tx, id, webhook, webhook.events, std::string("sealed-patched"), now);
    });
    const auto patched = webhook_store::target(db(), tenant_, id, now);
    CPPUNIT_ASSERT_EQUAL(std::string("sealed-patched"), patched->sealedSecret);
    CPPUNIT_ASSERT(!patched->sealedPreviousSecret.has_value());
    CPPUNIT_ASSERT(storedPrevious(id).isNull("previous_secret"));
  }

  void testSweepClearsEndedOverlapsOnly() {
    const std::string ended = createWebhook("sealed-a");
    const std::string running = createWebhook("sealed-b");
    const std::int64_t now = rapport::nowMicros();
    rotate(ended, "sealed-a2", now - kOneSecond);
    rotate(running, "sealed-b2", now + 60 * kOneSecond);
    CPPUNIT_ASSERT(webhook_store::forgetExpiredSecrets(db(), now) >= 1);
    CPPUNIT_ASSERT(storedPrevious(ended).isNull("previous_secret"));
    CPPUNIT_ASSERT(storedPrevious(ended).isNull("previous_secret_until"));
    CPPUNIT_ASSERT_EQUAL(std::string("sealed-b"), storedPrevious(running).str("previous_secret"));
    CPPUNIT_ASSERT_EQUAL(std::string("sealed-a2"),
                         webhook_store::target(db(), tenant_, ended, now)->sealedSecret);
  }

 private:
  std::string createWebhook(const std::string& sealed) {
    const std::string id = rapport::newId("whk_");
    db().transaction(tenant_, [&](rapport::Tx& tx) {
      webhook_store::insert(
          tx, id,
          {.url = "https://example.com/hook", .events = {"crm.contact.created"}, .active = true},
          sealed, rapport::nowMicros());
    });
    return id;
  }

  void rotate(const std::string& id, const std::string& sealed,
              std::optional<std::int64_t> previousUntil) {
    db().transaction(tenant_, [&](rapport::Tx& tx) {
      webhook_store::rotateSecret(tx, id, sealed, previousUntil, rapport::nowMicros());
    });
  }

  rapport::Row storedPrevious(const std::string& id) {
    return db()
        .query(
            "SELECT previous_secret, previous_secret_until FROM webhooks "
            "WHERE company_id = ? AND id = ?",
            {tenant_, id})
        .front();
  }

  std::string tenant_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(SecretRotationStoreTest);
