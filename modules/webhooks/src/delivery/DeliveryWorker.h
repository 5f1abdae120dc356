// The delivery jobs (registry.job): the workers that take due deliveries
// from the outbox and attempt them, and the hourly clean-up.
//
// Worker (job "deliver", `webhooks.workers` threads, every second and at
// each wake): looks whether anything is due (a read: an idle poll takes no
// write lock), claims up to 64 due deliveries of one company under a fresh
// lease (delivery_store::claimDue: companies in turn after the last one
// served, fresh before backlog, within the caps of batches in flight per
// company and per webhook), hands them to the Deliverer (send one by one,
// record in one transaction), and claims again until nothing may be taken
// or the server stops. A commit that wrote deliveries wakes one worker
// (wakeOne); a worker whose claim took something wakes one more, so workers
// join as the backlog needs them. A wake during a run makes a thread run
// once more (jobs.h), so deliveries written meanwhile never wait for the
// next second.
//
// Fairness (docs/modules/webhooks.md): a company holds at most
// `webhooks.company_concurrency` batches at once and a webhook
// `webhooks.target_concurrency`, so a company's backlog or hanging receiver
// takes only those workers; the others serve the other companies.
//
// Clean-up (job "purge", one thread, hourly): deletes finished deliveries
// older than `webhooks.delivery_retention_days`, and fails pings a crash
// left pending.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

#include "delivery/Attempt.h"
#include "rapport/jobs.h"
#include "rapport/module.h"

namespace rapport::webhooks {

// Deliveries one claim takes at most. 64 rather than 16 since issue 25: a
// company holds at most `webhooks.company_concurrency` (2) batches at once,
// so under full create load 2 x 16 per claim-send-record cycle could not
// keep pace with one company's creates; a claim takes only what is due, so
// a quiet company's batches stay small.
inline constexpr int kClaimBatch = 64;

class DeliveryWorker {
 public:
  // Both outlive this object. `policy.after` is the worker's own cursor.
  DeliveryWorker(Host& host, Deliverer& deliverer, ClaimPolicy policy)
      : host_(host), deliverer_(deliverer), policy_(std::move(policy)) {}

  // The "deliver" job's handle, to call in a helper when a claim is full.
  void setWorkers(JobHandle workers) { workers_ = std::move(workers); }

  // One run of the "deliver" job.
  void run(JobContext& context);

 private:
  // The claim's policy with the round robin's cursor: the company served last.
  ClaimPolicy nextPolicy() const;
  void served(const std::string& companyId);

  Host& host_;
  Deliverer& deliverer_;
  JobHandle workers_;
  mutable std::mutex mutex_;
  ClaimPolicy policy_;  // shared by the worker threads, under mutex_
};

class DeliveryPurge {
 public:
  DeliveryPurge(Host& host, int retentionDays) : host_(host), retentionDays_(retentionDays) {}

  // One run of the "purge" job.
  void run(JobContext& context);

 private:
  Host& host_;
  int retentionDays_;
};

}  // namespace rapport::webhooks
