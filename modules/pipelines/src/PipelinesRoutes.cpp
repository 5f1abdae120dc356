#include "PipelinesRoutes.h"

#include <algorithm>

#include "PipelinesJson.h"
#include "PipelinesValidation.h"
#include "rapport/error.h"
#include "rapport/ids.h"
#include "rapport/pagination.h"
#include "rapport/time.h"

namespace pipelines {
namespace {

using rapport::Error;
using rapport::Json;
using rapport::Request;
using rapport::Response;
using rapport::Tx;

const char* const kPipelineNotFound = "Pipeline not found.";
const char* const kStageNotFound = "Stage not found.";

// The stage `id` of a pipeline as shown; 404 when it is not one of its stages.
Json stageOf(const Json& pipeline, const std::string& id) {
  for (const Json& stage : pipeline["stages"].asArray()) {
    if (stage["id"].asString() == id) return stage;
  }
  throw Error::notFound(kStageNotFound);
}

std::vector<std::string> idsOf(const std::vector<StageSlot>& slots) {
  std::vector<std::string> ids;
  ids.reserve(slots.size());
  for (const StageSlot& slot : slots) ids.push_back(slot.id);
  return ids;
}

// The place (1..size) a requested `order` means among `size` places: larger
// values are clamped to the last place (validation refused values below 1).
std::size_t placeOf(std::int64_t order, std::size_t size) {
  return static_cast<std::size_t>(std::min<std::int64_t>(order, static_cast<std::int64_t>(size)));
}

// The pipeline row, locked for this transaction's stage changes; 404 otherwise.
rapport::Row lockedPipeline(Tx& tx, const std::string& id) {
  auto row = store::lockPipeline(tx, id);
  if (!row) throw Error::notFound(kPipelineNotFound);
  return *row;
}

}  // namespace

PipelinesRoutes::PipelinesRoutes(rapport::Host& host) : host_(host) {}

std::optional<Json> PipelinesRoutes::show(rapport::Queryable& db, const std::string& tenant,
                                          const std::string& id) const {
  const auto row = store::findPipeline(db, tenant, id);
  if (!row) return std::nullopt;
  rapport::Result rows;
  rows.rows.push_back(*row);
  Json::Array shown = pipelinesJson(rows, store::stagesOf(db, tenant, {id}));
  host_.records().augment(db, tenant, "pipeline", shown);
  return std::move(shown.front());
}

Json PipelinesRoutes::showWritten(Tx& tx, const std::string& id) const {
  return *show(tx, tx.companyId(), id);
}

Response PipelinesRoutes::list(const Request& request) {
  const rapport::PageRequest page = rapport::parsePage(request);
  const rapport::Sort sort =
      rapport::parseSort(request, store::sortColumns(), store::defaultSort());
  rapport::Queryable& db = host_.db();
  const std::string& tenant = request.identity.companyId;
  const rapport::ListPage found = store::list(db, tenant, sort, page);
  std::vector<std::string> ids;
  for (const rapport::Row& row : found.rows) ids.push_back(row.str("id"));
  Json::Array shown = pipelinesJson(found.rows, store::stagesOf(db, tenant, ids));
  host_.records().augment(db, tenant, "pipeline", shown);
  return Response::list(Json(std::move(shown)), rapport::pageMeta(page, found.total));
}

Response PipelinesRoutes::create(const Request& request) {
  const PipelineInput in = validatePipeline(request.bodyObject(), Mode::Create);
  const std::string id = rapport::newId("pipe_");
  Json created;
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    const std::int64_t now = rapport::nowMicros();
    store::lockTenant(tx);  // the default rules take turns per tenant
    // The tenant's first pipeline is the default whatever was sent.
    const bool first = !store::hasPipelines(tx);
    const bool makeDefault = first || in.isDefault.valueOr(false);
    if (makeDefault && !first) store::clearDefault(tx, now);
    store::insertPipeline(tx, id, *in.name.value, makeDefault, now);
    std::int64_t position = 0;
    for (const StageInput& stage : in.stages) {
      store::insertStage(tx, rapport::newId("stg_"), id, *stage.name.value, ++position,
                         stage.probability.valueOr(0), now);
    }
    created = showWritten(tx, id);
  });
  return Response::created(created, "Pipeline created.");
}

Response PipelinesRoutes::get(const Request& request) {
  auto shown = show(host_.db(), request.identity.companyId, request.param("id"));
  if (!shown) throw Error::notFound(kPipelineNotFound);
  return Response::ok(std::move(*shown));
}

Response PipelinesRoutes::update(const Request& request) {
  const PipelineInput in = validatePipeline(request.bodyObject(), Mode::Update);
  const std::string& id = request.param("id");
  Json updated;
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    if (in.isDefault.present) store::lockTenant(tx);  // before the row: one lock order
    const rapport::Row row = lockedPipeline(tx, id);
    std::string name = row.str("name");
    bool isDefault = row.flag("is_default");
    const bool wasDefault = isDefault;
    bool applied = in.name.applyTo(name);
    applied |= in.isDefault.applyTo(isDefault);
    if (applied) {  // otherwise nothing to change: no write
      const std::int64_t now = rapport::nowMicros();
      // Making one default clears the others; clearing the default leaves
      // the tenant without one (at most one).
      if (isDefault && !wasDefault) store::clearDefault(tx, now);
      store::updatePipeline(tx, id, name, isDefault, now);
    }
    updated = showWritten(tx, id);
  });
  return Response::ok(updated, "Pipeline updated.");
}

Response PipelinesRoutes::remove(const Request& request) {
  const std::string& id = request.param("id");
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    store::lockTenant(tx);
    const std::optional<bool> wasDefault = store::removePipeline(tx, id);
    if (!wasDefault) throw Error::notFound(kPipelineNotFound);
    // The stages go first, so a deal being created in one of them (which
    // holds a key-share lock on it until commit) is waited for and then seen
    // by the guard below. Deleting a pipeline covers its stages: no
    // deleted("stage") per stage.
    store::removeStagesOf(tx, id);
    host_.records().deleted(tx, "pipeline", id);  // deals refuse: 409
    if (*wasDefault) store::promoteOldest(tx, rapport::nowMicros());
  });
  return Response::ok(Json::object({{"id", id}}), "Pipeline deleted.");
}

Response PipelinesRoutes::stages(const Request& request) {
  auto shown = show(host_.db(), request.identity.companyId, request.param("id"));
  if (!shown) throw Error::notFound(kPipelineNotFound);
  return Response::ok((*shown)["stages"]);
}

Response PipelinesRoutes::createStage(const Request& request) {
  const StageInput in = validateStage(request.bodyObject(), Mode::Create);
  const std::string& pipelineId = request.param("id");
  const std::string id = rapport::newId("stg_");
  Json created;
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    lockedPipeline(tx, pipelineId);
    const std::vector<StageSlot> current = store::stageOrder(tx, pipelineId);
    if (current.size() >= kMaxStages) {
      throw Error::conflict("A pipeline may not have more than " + std::to_string(kMaxStages) +
                            " stages.");
    }
    // Without an order it goes last; with one it takes that place (clamped
    // to last) and the later stages move down one.
    std::vector<std::string> ids = idsOf(current);
    const std::size_t place = placeOf(in.order.valueOr(INT64_MAX), ids.size() + 1);
    ids.insert(ids.begin() + static_cast<std::ptrdiff_t>(place - 1), id);
    const std::int64_t now = rapport::nowMicros();
    store::arrange(tx, pipelineId, current, ids, now);
    store::insertStage(tx, id, pipelineId, *in.name.value, static_cast<std::int64_t>(place),
                       in.probability.valueOr(0), now);
    store::touchPipeline(tx, pipelineId, now);
    created = stageOf(showWritten(tx, pipelineId), id);
  });
  return Response::created(created, "Stage created.");
}

Response PipelinesRoutes::getStage(const Request& request) {
  auto shown = show(host_.db(), request.identity.companyId, request.param("id"));
  if (!shown) throw Error::notFound(kPipelineNotFound);
  return Response::ok(stageOf(*shown, request.param("stage_id")));
}

Response PipelinesRoutes::updateStage(const Request& request) {
  const StageInput in = validateStage(request.bodyObject(), Mode::Update);
  const std::string& pipelineId = request.param("id");
  const std::string& id = request.param("stage_id");
  Json updated;
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    lockedPipeline(tx, pipelineId);
    const auto row = store::findStage(tx, tx.companyId(), id);
    if (!row || row->str("pipeline_id") != pipelineId) throw Error::notFound(kStageNotFound);
    const std::int64_t now = rapport::nowMicros();
    bool changed = false;
    if (in.name.present || in.probability.present) {
      store::updateStage(tx, id, in.name.valueOr(row->str("name")),
                         in.probability.valueOr(row->i64("probability")), now);
      changed = true;
    }
    if (in.order.value) {
      // Moves it to that place (clamped to last); the stages between move by one.
      const std::vector<StageSlot> current = store::stageOrder(tx, pipelineId);
      std::vector<std::string> ids = idsOf(current);
      ids.erase(std::find(ids.begin(), ids.end(), id));
      const std::size_t place = placeOf(*in.order.value, current.size());
      ids.insert(ids.begin() + static_cast<std::ptrdiff_t>(place - 1), id);
      changed |= store::arrange(tx, pipelineId, current, ids, now) > 0;
    }
    if (changed) store::touchPipeline(tx, pipelineId, now);
    updated = stageOf(showWritten(tx, pipelineId), id);
  });
  return Response::ok(updated, "Stage updated.");
}

Response PipelinesRoutes::removeStage(const Request& request) {
  const std::string& pipelineId = request.param("id");
  const std::string& id = request.param("stage_id");
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    lockedPipeline(tx, pipelineId);
    if (!store::removeStage(tx, pipelineId, id)) throw Error::notFound(kStageNotFound);
    host_.records().deleted(tx, "stage", id);  // deals refuse: 409
    // The later stages move up one: 1..n without gaps.
    const std::vector<StageSlot> current = store::stageOrder(tx, pipelineId);
    const std::int64_t now = rapport::nowMicros();
    store::arrange(tx, pipelineId, current, idsOf(current), now);
    store::touchPipeline(tx, pipelineId, now);
  });
  return Response::ok(Json::object({{"id", id}}), "Stage deleted.");
}

Response PipelinesRoutes::reorder(const Request& request) {
  const std::vector<StagePlace> places = validateReorder(request.bodyObject());
  const std::string& pipelineId = request.param("id");
  Json ordered;
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    lockedPipeline(tx, pipelineId);
    const std::vector<StageSlot> current = store::stageOrder(tx, pipelineId);
    rejectUnlessEveryStage(request.bodyObject(), places, idsOf(current));
    std::vector<std::string> ids;
    for (const StagePlace& place : places) ids.push_back(place.id);
    const std::int64_t now = rapport::nowMicros();
    if (store::arrange(tx, pipelineId, current, ids, now) > 0) {
      store::touchPipeline(tx, pipelineId, now);
    }
    ordered = showWritten(tx, pipelineId)["stages"];
  });
  return Response::ok(ordered, "Stages reordered.");
}

}  // namespace pipelines
