// What clients may query on companies (decisions §13): the record query engine's
// declaration of the companies table.
#pragma once

#include "rapport/record_query.h"

namespace companies {

const rapport::RecordQuery& companiesQuery();

}  // namespace companies
