// What the transactions of the request a thread serves run besides the
// handler's own work, armed by the pipeline for the time of the handler:
//   - `first`: the If-Match check (conditional/ConditionalRoutes.h) reads
//     and locks the record at the start of the request's first
//     transaction, so no other writer can change it between the check and
//     the handler's write. Later transactions run without it.
//   - `beforeCommit`: the Idempotency-Key fence
//     (idempotency/IdempotencyKeys.h) marks the key "written" at the end of
//     every transaction of the request, in it, and refuses the commit when
//     another request took the key over: a write and the mark that it
//     happened commit together or not at all.
//
// SqlDatabaseImpl::transaction reads the armed hooks when a transaction
// starts and runs them in every attempt of it (a PostgreSQL deadlock retry
// runs them again). The transaction may run on another thread (SQLite's
// group commit): the hooks are carried with the work, not looked up there.
// No hooks are armed on job threads or outside a handler.
#pragma once

#include <functional>

#include "rapport/db.h"

namespace rapport::host {

class RequestTransactions {
 public:
  using Hook = std::function<void(rapport::Tx&)>;

  struct Hooks {
    Hook first;         // empty: none
    Hook beforeCommit;  // empty: none
  };

  // Arms `hooks` on this thread until the scope ends (scopes nest: the
  // innermost is armed).
  explicit RequestTransactions(Hooks hooks);
  ~RequestTransactions();
  RequestTransactions(const RequestTransactions&) = delete;
  RequestTransactions& operator=(const RequestTransactions&) = delete;

  // The hooks of the transaction that starts now on this thread: `first`
  // only for the scope's first transaction. Empty hooks when none is armed.
  static Hooks forNextTransaction();

 private:
  Hooks hooks_;
  bool firstTaken_ = false;
  RequestTransactions* previous_;
};

}  // namespace rapport::host
