#include "delivery/DeliveryWorker.h"

#include "DeliveryStore.h"
#include "rapport/time.h"

namespace rapport::webhooks {
namespace {

constexpr int kPurgeBatch = 1000;
constexpr std::int64_t kMicrosPerDay = 86400LL * 1000 * 1000;

}  // namespace

ClaimPolicy DeliveryWorker::nextPolicy() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return policy_;
}

void DeliveryWorker::served(const std::string& companyId) {
  std::lock_guard<std::mutex> lock(mutex_);
  policy_.after = companyId;
}

void DeliveryWorker::run(JobContext& context) {
  if (!deliverer_.started()) return;
  // After a full batch more is likely due: the claim itself looks (one
  // read fewer per batch under load).
  bool full = false;
  while (!context.stopping()) {
    const std::int64_t now = nowMicros();
    if (!full && !delivery_store::anyDue(host_.db(), now)) return;
    const Lease lease = deliverer_.newLease(now);
    const std::vector<ClaimedDelivery> batch = delivery_store::claimDue(
        host_.db(), now, lease.token, lease.until, kClaimBatch, nextPolicy());
    // Nothing due, or only what the caps keep for the batches in flight.
    if (batch.empty()) return;
    full = batch.size() == static_cast<std::size_t>(kClaimBatch);
    served(batch.front().companyId);
    // Another company (or more of this one) may be due: one more worker
    // joins while this one sends.
    if (workers_) workers_->wakeOne();
    deliverer_.deliver(batch, Deliverer::Mode::Scheduled);
  }
}

void DeliveryPurge::run(JobContext& context) {
  const std::int64_t now = nowMicros();
  const std::int64_t abandoned = delivery_store::failAbandonedPings(host_.db(), now);
  if (abandoned > 0) {
    host_.log().warn("webhook pings left pending by a stopped server marked failed: count=" +
                     std::to_string(abandoned));
  }
  const std::int64_t cutoff = now - retentionDays_ * kMicrosPerDay;
  std::int64_t purged = 0;
  while (!context.stopping()) {
    const std::int64_t removed = delivery_store::purgeFinished(host_.db(), cutoff, kPurgeBatch);
    purged += removed;
    if (removed < kPurgeBatch) break;
  }
  if (purged > 0) {
    host_.log().info("webhook deliveries purged: count=" + std::to_string(purged) +
                     " retention_days=" + std::to_string(retentionDays_));
  }
}

}  // namespace rapport::webhooks
