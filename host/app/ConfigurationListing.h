// The configuration as `rapportd --help` and `rapportd --print-config`
// print it: the host's keys first, then each enabled module's keys under a
// line naming the module, its file and version (ModuleConfiguration.h reads
// them without setting the modules up). A module that could not be loaded
// gets a line saying why, and the rest still prints.
#pragma once

#include <ostream>
#include <vector>

#include "app/ModuleConfiguration.h"
#include "app/Settings.h"

namespace rapport::host {

// --help: every key with its default, description and environment name:
//   Configuration keys (file, or environment RAPPORT_<KEY>):
//     server.host = 127.0.0.1
//         listen address  [RAPPORT_SERVER_HOST]
//   ...
//   Module webhooks (rapport_webhooks.so 1.0.0):
//     webhooks.timeout = 10
//         seconds per delivery attempt  [RAPPORT_WEBHOOKS_TIMEOUT]
//   Module foo: not loaded: module 'foo' not found: no rapport_foo.so in /opt/m
void printKeyReference(std::ostream& out, const std::vector<ModuleSummary>& modules);

// --print-config: "key = value" lines (a properties file), secrets masked:
// the host's keys (sorted), then each module's keys with their effective
// values (operator's, environment, else declared default) under a comment
// naming the module, then, commented out, the keys that neither the host nor
// an enabled module reads (ignored).
void printEffectiveConfiguration(std::ostream& out, Settings settings,
                                 const std::vector<ModuleSummary>& modules);

}  // namespace rapport::host
