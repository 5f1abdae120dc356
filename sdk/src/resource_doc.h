// The API document's description of a rapport::Resource (resource.h): its
// record schema, named after its noun, and its five routes. Internal to the
// SDK library.
#pragma once

#include <map>
#include <string>

#include "rapport/module.h"
#include "rapport/record_query.h"
#include "rapport/resource.h"

namespace rapport::detail {

// Call after the five routes are registered.
void describeResource(const ResourceSpec& spec, const RecordQuery& query, Registry& registry);

}  // namespace rapport::detail
