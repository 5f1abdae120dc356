// The handlers of the activities module. Each one reads the request,
// validates it, does its work in one transaction (the change, its event and
// the read-back that the event and the response share), and answers.
#pragma once

#include <string>

#include "ActivitiesStore.h"
#include "rapport/http.h"
#include "rapport/module.h"

namespace activities {

class ActivitiesRoutes {
 public:
  // `host` outlives this object.
  explicit ActivitiesRoutes(rapport::Host& host);

  // GET /crm/activities: filters, sort, pagination.
  rapport::Response list(const rapport::Request& request);
  // GET /crm/contacts/{id}/activities and GET /crm/deals/{id}/activities: the
  // same list, of the activities related to that record (`relatedType`
  // "contact" or "deal"); 404 `notFound` when the record is not the tenant's.
  rapport::Response listOfRelated(const rapport::Request& request, const std::string& relatedType,
                                  const std::string& notFound);
  // POST /crm/activities
  // POST /crm/activities/search: the list's query language in a JSON body.
  rapport::Response search(const rapport::Request& request);
  rapport::Response create(const rapport::Request& request);
  // GET /crm/activities/{id}
  rapport::Response get(const rapport::Request& request);
  // PATCH /crm/activities/{id}: only the fields sent change; answers the whole activity.
  rapport::Response update(const rapport::Request& request);
  // DELETE /crm/activities/{id}
  rapport::Response remove(const rapport::Request& request);
  // POST /crm/activities/{id}/complete: pending -> completed (409 otherwise).
  rapport::Response complete(const rapport::Request& request);
  // POST /crm/activities/{id}/reopen: completed -> pending (409 otherwise).
  rapport::Response reopen(const rapport::Request& request);

 private:
  rapport::Response page(const rapport::Request& request, const ActivityFilter& filter);
  // 404 unless the owner and the related record exist in tx's tenant; takes
  // the directory's reference lock on each (records.h).
  void requireOwner(rapport::Tx& tx, const std::string& ownerId) const;
  void requireRelated(rapport::Tx& tx, const RelatedTo& related) const;

  rapport::Host& host_;
};

}  // namespace activities
