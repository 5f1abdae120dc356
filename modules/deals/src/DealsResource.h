// The deal as a declaration of the record engine (rapport/resource.h), with
// the rules that are the module's own: a stage belongs to its pipeline, the
// probability follows the stage unless set, and the stage, status and close
// dates change only through the actions (stage, win, lose, reopen), which
// the engine runs in its transaction.
#pragma once

#include <cstdint>

#include "rapport/module.h"
#include "rapport/resource.h"

namespace deals {

// The largest deal value, in cents.
inline constexpr std::int64_t kMaxValue = 1'000'000'000'000;

// The declaration (docs/modules/deals.md lists the fields and rules). The
// rules and actions keep `host` (valid from setup() to stop()) for the
// record directory.
rapport::ResourceSpec dealsSpec(rapport::Host& host);

}  // namespace deals
