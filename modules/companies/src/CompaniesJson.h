// A CRM company as the API shows it: the one place its shape is defined, used
// by GET, the list and the data of every crm.company.* event.
#pragma once

#include "rapport/db.h"
#include "rapport/json.h"

namespace companies {

// {id, name, document, industry, website, size, annual_revenue, phone, tags,
//  notes, created_at, updated_at} from a row read by store::find or store::list.
rapport::Json companyJson(const rapport::Row& row);

}  // namespace companies
