// The handlers of the pipelines module. Each one reads the request, validates
// it, does its work in one transaction (the change and the read-back that the
// response shows), and answers. Every pipeline answered (alone, in a list, or
// as the home of the stage(s) answered) goes through the record directory's
// augment first, so the deals module can set its counters.
#pragma once

#include <string>

#include "PipelinesStore.h"
#include "rapport/http.h"
#include "rapport/module.h"

namespace pipelines {

class PipelinesRoutes {
 public:
  // `host` outlives this object.
  explicit PipelinesRoutes(rapport::Host& host);

  // GET /crm/pipelines: pagination and sort.
  rapport::Response list(const rapport::Request& request);
  // POST /crm/pipelines
  rapport::Response create(const rapport::Request& request);
  // GET /crm/pipelines/{id}
  rapport::Response get(const rapport::Request& request);
  // PATCH /crm/pipelines/{id}: name and/or is_default.
  rapport::Response update(const rapport::Request& request);
  // DELETE /crm/pipelines/{id}
  rapport::Response remove(const rapport::Request& request);

  // GET /crm/pipelines/{id}/stages: the ordered stages (no meta).
  rapport::Response stages(const rapport::Request& request);
  // POST /crm/pipelines/{id}/stages
  rapport::Response createStage(const rapport::Request& request);
  // GET /crm/pipelines/{id}/stages/{stage_id}
  rapport::Response getStage(const rapport::Request& request);
  // PATCH /crm/pipelines/{id}/stages/{stage_id}: name, order, probability.
  rapport::Response updateStage(const rapport::Request& request);
  // DELETE /crm/pipelines/{id}/stages/{stage_id}
  rapport::Response removeStage(const rapport::Request& request);
  // PATCH /crm/pipelines/{id}/stages/reorder
  rapport::Response reorder(const rapport::Request& request);

 private:
  // The pipeline `id` of `tenant` as shown (stages, augmented counters);
  // nullopt when it is not the tenant's.
  std::optional<rapport::Json> show(rapport::Queryable& db, const std::string& tenant,
                                    const std::string& id) const;
  // show(), inside `tx`, for a pipeline the transaction just wrote.
  rapport::Json showWritten(rapport::Tx& tx, const std::string& id) const;

  rapport::Host& host_;
};

}  // namespace pipelines
