// What every connection of one HttpServer shares: the request path, the
// workers, the limits, the counters, and whether the server is stopping.
// Owned by HttpServer, which outlives its connections.
#pragma once

#include <atomic>

#include "http/Pipeline.h"
#include "http/TrustedProxies.h"
#include "http/server/AddressCounts.h"
#include "http/server/ConnectionLimits.h"
#include "http/server/ConnectionStats.h"
#include "http/server/WorkerPool.h"

namespace rapport::host {

struct ServerContext {
  const Pipeline& pipeline;
  WorkerPool& workers;
  const ConnectionLimits& limits;
  ConnectionStats& stats;
  AddressCounts& addresses;
  const TrustedProxies& trustedProxies;
  // Set once by HttpServer::stop(): answers say "Connection: close" and no
  // connection waits for another request.
  std::atomic<bool> stopping{false};
};

}  // namespace rapport::host
