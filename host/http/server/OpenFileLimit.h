// Each connection is a file descriptor: the usual soft limit of 1,024 would
// refuse clients long before server.max_connections (accept fails with
// EMFILE). rapportd raises its soft limit to the hard limit at start-up, as
// nginx's worker_rlimit_nofile or systemd's LimitNOFILE would.
#pragma once

#include <cstddef>

namespace rapport::host {

// Raises the soft RLIMIT_NOFILE to the hard limit; returns the soft limit in
// force afterwards. Never throws.
std::size_t raiseOpenFileLimit();

// The connections that fit under `openFileLimit` with room for the
// descriptors that are not connections (database, logs, modules, ...).
std::size_t connectionsWithin(std::size_t openFileLimit);

}  // namespace rapport::host
