// The host's own routes:
//   GET /v1/versions              public: the configured versions
//   GET /v1/errors/sample?status  authenticated: the error envelope of a status
//   GET /healthz                  public, outside /v1: the process answers
//   GET /readyz                   public, outside /v1: 200 when ready(), else 503;
//                                 ready() runs at most once a second (Readiness.h)
#pragma once

#include <functional>

#include "http/Readiness.h"
#include "http/Router.h"
#include "http/VersionPolicy.h"

namespace rapport::host {

// `versions` must outlive the router. `ready` runs on worker threads (for
// example a database ping), one call at a time; `clock` is for tests.
void registerUtilityRoutes(Router& router, const VersionPolicy& versions,
                           std::function<bool()> ready, CachedReadiness::Clock clock = {});

}  // namespace rapport::host
