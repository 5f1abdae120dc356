// Collectors of parts that live shorter than the process, added by the
// server while they run (app/Server.cpp holds them in ScopedCollectors).
#pragma once

#include "http/server/ConnectionStats.h"
#include "metrics/Registry.h"

namespace rapport::host::metrics {

// The HTTP front end's connections (http/server/ConnectionStats.h): open
// now, accepted, and closed or refused by which limit or deadline.
Registry::Collector connectionCollector(const ConnectionStats& stats);

}  // namespace rapport::host::metrics
