// Field rules of a CRM company (docs/modules/companies.md lists them).
#include "CompaniesValidation.h"

#include "rapport/request_rules.h"

namespace companies {

CompanyInput validateCompany(const rapport::Json& body, Mode mode) {
  rapport::Validator v(body);
  CompanyInput in;
  // PATCH may leave the name out, but never clear it.
  const bool nameRequired = mode == Mode::Create || v.present("name");
  in.name = v.string("name", {.required = nameRequired, .min = 0, .max = 255});
  in.document = rapport::optionalText(v, "document", 100);
  in.industry = rapport::optionalText(v, "industry", 100);
  in.website = rapport::optionalText(v, "website", 255);
  in.size = rapport::optionalText(v, "size", 50);
  in.annualRevenue = v.money("annual_revenue");
  in.phone = rapport::optionalText(v, "phone", 50);
  in.tags = v.tags("tags");
  in.notes = rapport::optionalText(v, "notes", 10000);
  v.check();
  return in;
}

CompanyFilter validateFilter(const rapport::Request& request) {
  rapport::FieldErrors errors;
  CompanyFilter filter{.search = rapport::searchParam(request, errors),
                       .tag = rapport::filterParam(request, "tag"),
                       .industry = rapport::filterParam(request, "industry"),
                       .size = rapport::filterParam(request, "size")};
  if (!errors.empty()) throw rapport::Error::validation(std::move(errors));
  return filter;
}

}  // namespace companies
