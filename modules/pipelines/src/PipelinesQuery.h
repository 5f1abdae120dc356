// What clients may query on pipelines (decisions §13): the record query engine's
// declaration of the pipelines table.
#pragma once

#include "rapport/record_query.h"

namespace pipelines {

const rapport::RecordQuery& pipelinesQuery();
const rapport::RecordQuery& stagesQuery();

}  // namespace pipelines
