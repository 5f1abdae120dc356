// A check that the request's first transaction runs, inside it, before the
// handler's own work: the If-Match check (conditional/ConditionalRoutes.h)
// reads and locks the record there, so no other writer can change it
// between the check and the handler's write.
//
// The pipeline arms a check on the request's thread for the time of the
// handler (the scope); SqlDatabaseImpl::transaction takes it when the
// handler opens its first transaction and runs it at the start of every
// attempt of that transaction (a PostgreSQL deadlock retry checks again).
// Later transactions of the same request run without it. The transaction
// may run on another thread (SQLite's group commit): the check is carried
// with the work, not looked up there.
#pragma once

#include <functional>

#include "rapport/db.h"

namespace rapport::host {

class FirstTransactionCheck {
 public:
  using Check = std::function<void(rapport::Tx&)>;

  // Arms `check` on this thread until the scope ends.
  explicit FirstTransactionCheck(Check check);
  ~FirstTransactionCheck();
  FirstTransactionCheck(const FirstTransactionCheck&) = delete;
  FirstTransactionCheck& operator=(const FirstTransactionCheck&) = delete;

  // True once a transaction took the check.
  bool taken() const { return taken_; }

  // The check armed on this thread, disarmed; empty when there is none.
  static Check take();

 private:
  Check check_;
  bool taken_ = false;
  FirstTransactionCheck* previous_;
};

}  // namespace rapport::host
