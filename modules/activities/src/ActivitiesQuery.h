// What clients may query on activities (decisions §13): the record query engine's
// declaration of the activities table.
#pragma once

#include "rapport/record_query.h"

namespace activities {

const rapport::RecordQuery& activitiesQuery();

}  // namespace activities
