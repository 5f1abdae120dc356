// The handlers of the deals module. Each one reads the request, validates it,
// does its work in one transaction (the change, its event and the read-back
// that the event and the response share), and answers.
#pragma once

#include <functional>
#include <string>

#include "DealsStore.h"
#include "DealsValidation.h"
#include "rapport/http.h"
#include "rapport/module.h"

namespace deals {

class DealsRoutes {
 public:
  // `host` outlives this object; `links` tells which optional modules
  // (contacts, companies) deals may link to.
  DealsRoutes(rapport::Host& host, Links links);

  // GET /crm/deals: filters, sort, pagination.
  rapport::Response list(const rapport::Request& request);
  // GET /crm/contacts/{id}/deals and /crm/companies/{id}/deals: the same list,
  // of one contact or CRM company (404 when it is not the tenant's).
  rapport::Response listOfContact(const rapport::Request& request);
  rapport::Response listOfCompany(const rapport::Request& request);
  // POST /crm/deals
  // POST /crm/deals/search: the list's query language in a JSON body.
  rapport::Response search(const rapport::Request& request);
  rapport::Response create(const rapport::Request& request);
  // GET /crm/deals/{id}
  rapport::Response get(const rapport::Request& request);
  // PATCH /crm/deals/{id}: only the fields sent change; answers the whole deal.
  rapport::Response update(const rapport::Request& request);
  // DELETE /crm/deals/{id}
  rapport::Response remove(const rapport::Request& request);
  // PATCH /crm/deals/{id}/stage {stage_id, pipeline_id?}
  rapport::Response moveStage(const rapport::Request& request);
  // POST /crm/deals/{id}/win, /lose, /reopen
  rapport::Response win(const rapport::Request& request);
  rapport::Response lose(const rapport::Request& request);
  rapport::Response reopen(const rapport::Request& request);

 private:
  rapport::Response page(const rapport::Request& request, const DealFilter& filter);
  // Runs a status transition on the locked deal: `change` checks the current
  // status (409) and sets the new fields; then the deal is written, read
  // back, and `event` emitted with it.
  rapport::Response transition(const rapport::Request& request, const std::string& event,
                               const std::string& message,
                               const std::function<void(Deal&)>& change);
  // The stage `stageId` as the pipelines module shows it, key-share-locked
  // for a reference about to be written: 404 "Stage not found." when it is
  // absent, 422 on stage_id when it is not a stage of `pipelineId`.
  rapport::Json requireStage(rapport::Tx& tx, const std::string& stageId,
                             const std::string& pipelineId) const;
  // 404 unless each reference `in` sets (contact, CRM company, owner) exists
  // in the tenant; locks each for the reference about to be written.
  void requireLinks(rapport::Tx& tx, const DealInput& in) const;

  rapport::Host& host_;
  Links links_;
};

// Registry::augment("pipeline"): sets deals_count and deals_value of the open
// deals on each pipeline of `pipelines` and on each stage of its `stages`,
// from deal_stage_totals in one query.
void augmentPipelines(rapport::Queryable& db, const std::string& companyId,
                      rapport::Json::Array& pipelines);
// Registry::augment("stage"): the same counters on stages read alone (GET
// .../stages/{stage_id} shows its pipeline's), so a stage's fetch with its
// augments is what its GET shows: the ETag an If-Match is checked against.
void augmentStages(rapport::Queryable& db, const std::string& companyId,
                   rapport::Json::Array& stages);

}  // namespace deals
