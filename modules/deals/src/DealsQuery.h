// What clients may query on deals (decisions §13): the record query engine's
// declaration of the deals table.
#pragma once

#include "rapport/record_query.h"

namespace deals {

const rapport::RecordQuery& dealsQuery();

}  // namespace deals
