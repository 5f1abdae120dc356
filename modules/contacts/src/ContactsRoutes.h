// The handlers of the contacts module. Each one reads the request, validates
// it, does its work in one transaction (the change, its event and the read-back
// that the event and the response share), and answers.
#pragma once

#include "ContactsStore.h"
#include "rapport/http.h"
#include "rapport/module.h"

namespace contacts {

class ContactsRoutes {
 public:
  // `host` outlives this object; `companiesEnabled` tells whether contacts may
  // link to CRM companies (the optional companies module).
  ContactsRoutes(rapport::Host& host, bool companiesEnabled);

  // GET /crm/contacts: the list's own filters, then the query language of
  // decisions §13 (ContactsQuery.h).
  rapport::Response list(const rapport::Request& request);
  // GET /crm/companies/{id}/contacts: the same list, of one CRM company.
  rapport::Response listOfCompany(const rapport::Request& request);
  // POST /crm/contacts/search: the list's query language in a JSON body.
  rapport::Response search(const rapport::Request& request);
  // POST /crm/contacts
  rapport::Response create(const rapport::Request& request);
  // GET /crm/contacts/{id}
  rapport::Response get(const rapport::Request& request);
  // PATCH /crm/contacts/{id}: only the fields sent change; answers the whole contact.
  rapport::Response update(const rapport::Request& request);
  // DELETE /crm/contacts/{id}
  rapport::Response remove(const rapport::Request& request);

 private:
  rapport::Response page(const rapport::Request& request, const ContactFilter& filter);
  // 404 unless the linked CRM company and the owner exist in the tenant.
  void requireLinks(rapport::Tx& tx, const Contact& contact) const;

  rapport::Host& host_;
  bool companiesEnabled_;
};

}  // namespace contacts
