// What a CRM company request may carry: bodies of POST and PATCH, and the
// list's query filters. Every rule that needs no database lives here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "CompaniesStore.h"
#include "rapport/http.h"
#include "rapport/validation.h"

namespace companies {

// A validated body. Each Field tells apart absent (PATCH leaves it alone),
// null (clears it; a blank optional string reads as null too) and a value.
struct CompanyInput {
  rapport::Field<std::string> name;
  rapport::Field<std::string> document;
  rapport::Field<std::string> industry;
  rapport::Field<std::string> website;
  rapport::Field<std::string> size;
  rapport::Field<std::int64_t> annualRevenue;  // cents
  rapport::Field<std::string> phone;
  rapport::Field<std::vector<std::string>> tags;
  rapport::Field<std::string> notes;
};

enum class Mode { Create, Update };

// Reads a POST (Create: name required) or PATCH (Update: name may be absent,
// never null or blank) body. Throws one 422 naming every field at fault.
CompanyInput validateCompany(const rapport::Json& body, Mode mode);

// Reads the filters of GET /crm/companies (search, tag, industry, size);
// blank values are ignored. Throws a 422 on a search longer than 255 characters.
CompanyFilter validateFilter(const rapport::Request& request);

}  // namespace companies
