// What the API document says about the CRM companies routes (api_doc.h).
#pragma once

#include "rapport/module.h"

namespace companies {

void describeCompaniesRoutes(rapport::Registry& registry);

}  // namespace companies
