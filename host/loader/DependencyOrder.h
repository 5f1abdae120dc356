// The order in which enabled modules are set up and started (and, reversed,
// stopped): every module after the modules it depends on.
//
// Depth-first, as Drogon initialises plugins: modules are taken in the order
// they were enabled; before a module come its `dependencies` (all required)
// and those of its `optional` modules that are enabled, each visited the same
// way. Modules that do not depend on each other keep the enabled order.
//
// Refusals (ModuleLoadError), checked in enabled order:
//   "module 'deals' requires module 'pipelines', which is not enabled"
//   "module dependency cycle: a -> b -> a"
#pragma once

#include <cstddef>
#include <vector>

#include "rapport/module.h"

namespace rapport::host {

// `modules` in enabled order, names unique. Returns indices into `modules`.
std::vector<std::size_t> dependencyOrder(const std::vector<rapport::ModuleInfo>& modules);

}  // namespace rapport::host
