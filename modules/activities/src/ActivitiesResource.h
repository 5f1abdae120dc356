// The activity as a declaration of the record engine (rapport/resource.h),
// with the rules that are the module's own: the historic list filters
// (related_type, related_id, scheduled_from, scheduled_to) and the complete
// and reopen actions. The module installs it; the tests build its schema
// from it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "rapport/db.h"
#include "rapport/resource.h"

namespace activities {

// The longest duration: one week, in minutes.
inline constexpr std::int64_t kMaxDurationMinutes = 10080;

// The declaration (docs/modules/activities.md lists the fields and rules).
// `enabled` answers whether a module is enabled (the list's related_type
// filter); the rules keep it.
rapport::ResourceSpec activitiesSpec(std::function<bool(const std::string&)> enabled);

// The module's migrations: the engine's, which stands for the hand-written
// ones the module shipped up to SDK 7 (0002_activities,
// 0003_activity_listing).
std::vector<rapport::Migration> migrations();

}  // namespace activities
