// What a Harness and its Clients share: the scratch folder and database,
// the settings and the host (app/Server, started without its listener).
// Destroyed when the Harness and every Client are gone: the host stops
// first (jobs, modules), then the database is dropped, then the folder goes.
//
// Threading: send() runs on the calling thread, from any number at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "HarnessSettings.h"
#include "ScratchDatabase.h"
#include "ScratchFolder.h"
#include "app/Server.h"
#include "rapport/testing.h"

namespace rapport::testing {

class HarnessState {
 public:
  // Throws std::runtime_error with the host's one-line reason.
  explicit HarnessState(const HarnessOptions& options);
  ~HarnessState();
  HarnessState(const HarnessState&) = delete;
  HarnessState& operator=(const HarnessState&) = delete;

  // One request through the host's pipeline, from the harness's client
  // address. Never throws.
  Reply send(host::RawRequest request) const;

  host::Server& server() { return *server_; }
  // A number no earlier call returned (unique e-mails).
  std::uint64_t nextNumber() { return ++counter_; }

 private:
  ScratchFolder folder_;
  ScratchDatabase database_;  // after the folder: dropped before it goes
  host::Settings settings_;   // the server keeps a reference
  std::unique_ptr<host::Server> server_;
  std::string clientAddress_;
  std::atomic<std::uint64_t> counter_{0};
};

}  // namespace rapport::testing
