// The server shared by the e2e.http suites: the probe fixture module loaded
// (for a failing route), a rate limit the suites never meet.
#pragma once

#include "e2e/common/Api.h"

namespace rapport::e2e {

inline ServerProcess& httpServer() {
  static ServerProcess server(probeSettings());
  return server;
}

}  // namespace rapport::e2e
