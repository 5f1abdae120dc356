// Field rules of a CRM company (docs/modules/companies.md lists them).
#include "CompaniesValidation.h"

namespace companies {
namespace {

// An optional text field of at most `max` characters; "" reads as null.
rapport::Field<std::string> optionalText(rapport::Validator& v, const std::string& field,
                                         std::size_t max) {
  rapport::Field<std::string> out = v.string(field, {.required = false, .min = 0, .max = max});
  if (out.value && out.value->empty()) out.value.reset();
  return out;
}

// A query parameter, trimmed; nullopt when absent or blank.
std::optional<std::string> queryText(const rapport::Request& request, const char* name) {
  const auto text = request.queryParam(name);
  if (!text || rapport::trim(*text).empty()) return std::nullopt;
  return rapport::trim(*text);
}

}  // namespace

CompanyInput validateCompany(const rapport::Json& body, Mode mode) {
  rapport::Validator v(body);
  CompanyInput in;
  // PATCH may leave the name out, but never clear it.
  const bool nameRequired = mode == Mode::Create || v.present("name");
  in.name = v.string("name", {.required = nameRequired, .min = 0, .max = 255});
  in.document = optionalText(v, "document", 100);
  in.industry = optionalText(v, "industry", 100);
  in.website = optionalText(v, "website", 255);
  in.size = optionalText(v, "size", 50);
  in.annualRevenue = v.money("annual_revenue");
  in.phone = optionalText(v, "phone", 50);
  in.tags = v.tags("tags");
  in.notes = optionalText(v, "notes", 10000);
  v.check();
  return in;
}

CompanyFilter validateFilter(const rapport::Request& request) {
  CompanyFilter filter{.search = queryText(request, "search"),
                       .tag = queryText(request, "tag"),
                       .industry = queryText(request, "industry"),
                       .size = queryText(request, "size")};
  if (filter.search && rapport::utf8Length(*filter.search) > 255) {
    throw rapport::Error::invalidField("search",
                                       "The search may not be greater than 255 characters.");
  }
  return filter;
}

}  // namespace companies
