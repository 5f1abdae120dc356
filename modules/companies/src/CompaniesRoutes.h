// The handlers of the companies module. Each one reads the request, validates
// it, does its work in one transaction (the change, its event and the read-back
// that the event and the response share), and answers.
#pragma once

#include "CompaniesStore.h"
#include "rapport/http.h"
#include "rapport/module.h"

namespace companies {

class CompaniesRoutes {
 public:
  // `host` outlives this object.
  explicit CompaniesRoutes(rapport::Host& host);

  // GET /crm/companies: filters, sort, pagination.
  rapport::Response list(const rapport::Request& request);
  // POST /crm/companies
  // POST /crm/companies/search: the list's query language in a JSON body.
  rapport::Response search(const rapport::Request& request);
  rapport::Response create(const rapport::Request& request);
  // GET /crm/companies/{id}
  rapport::Response get(const rapport::Request& request);
  // PATCH /crm/companies/{id}: only the fields sent change; answers the whole company.
  rapport::Response update(const rapport::Request& request);
  // DELETE /crm/companies/{id}: linked records (contacts...) are unlinked, not deleted.
  rapport::Response remove(const rapport::Request& request);

 private:
  rapport::Host& host_;
};

}  // namespace companies
