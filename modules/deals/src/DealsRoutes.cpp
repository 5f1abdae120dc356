#include "DealsRoutes.h"

#include "DealsJson.h"
#include "DealsQuery.h"
#include "rapport/error.h"
#include "rapport/ids.h"
#include "rapport/list.h"
#include "rapport/pagination.h"
#include "rapport/time.h"

namespace deals {
namespace {

using rapport::Error;
using rapport::Json;
using rapport::Request;
using rapport::Response;
using rapport::Tx;

const char* const kNotFound = "Deal not found.";

// Applies the fields a PATCH sent; false when it sent none that can change.
// Validation refuses a null or blank title, so title is absent or a value.
// A null probability is resolved by the caller (the stage's).
bool merge(const DealInput& in, Deal& deal) {
  bool applied = false;
  applied |= in.title.applyTo(deal.title);
  applied |= in.value.applyTo(deal.value, 0);
  applied |= in.currency.applyTo(deal.currency, std::string("USD"));
  applied |= in.contactId.applyTo(deal.contactId);
  applied |= in.companyId.applyTo(deal.crmCompanyId);
  applied |= in.ownerId.applyTo(deal.ownerId);
  applied |= in.expectedCloseDate.applyTo(deal.expectedCloseDate);
  applied |= in.probability.applyTo(deal.probability);
  applied |= in.tags.applyTo(deal.tags);  // null clears
  applied |= in.notes.applyTo(deal.notes);
  return applied;
}

std::int64_t probabilityOf(const Json& stage) {
  return stage["probability"].asInt();
}

}  // namespace

DealsRoutes::DealsRoutes(rapport::Host& host, Links links) : host_(host), links_(links) {}

Response DealsRoutes::list(const Request& request) {
  return page(request, validateFilter(request, links_));
}

Response DealsRoutes::listOfContact(const Request& request) {
  const std::string& contactId = request.param("id");
  if (!host_.records().exists(host_.db(), request.identity.companyId, "contact", contactId)) {
    throw Error::notFound("Contact not found.");
  }
  DealFilter filter = validateFilter(request, links_);
  filter.contactId = contactId;
  return page(request, filter);
}

Response DealsRoutes::listOfCompany(const Request& request) {
  const std::string& companyId = request.param("id");
  if (!host_.records().exists(host_.db(), request.identity.companyId, "company", companyId)) {
    throw Error::notFound("Company not found.");
  }
  DealFilter filter = validateFilter(request, links_);
  filter.companyId = companyId;
  return page(request, filter);
}

Response DealsRoutes::page(const Request& request, const DealFilter& filter) {
  const rapport::RecordQuery& query = dealsQuery();
  return query.answer(host_, query.read(request),
                      store::whereOf(host_.db().dialect(), request.identity.companyId, filter),
                      store::columns(), dealJson);
}

Response DealsRoutes::search(const Request& request) {
  return dealsQuery().search(host_, request, store::columns(), dealJson);
}

Response DealsRoutes::create(const Request& request) {
  const DealInput in = validateDeal(request.bodyObject(), Mode::Create, links_);
  Deal deal{.title = *in.title.value,
            .pipelineId = *in.pipelineId.value,
            .stageId = *in.stageId.value,
            .status = kOpen,
            .value = in.value.valueOr(0),
            .currency = in.currency.valueOr("USD"),
            .contactId = in.contactId.value,
            .crmCompanyId = in.companyId.value,
            .ownerId = in.ownerId.value,
            .expectedCloseDate = in.expectedCloseDate.value,
            .probability = 0,  // set from the stage when not given
            .tags = in.tags.valueOr({}),
            .notes = in.notes.value,
            .wonAt = std::nullopt,
            .lostAt = std::nullopt,
            .lostReason = std::nullopt};
  const std::string id = rapport::newId("deal_");
  Json created;
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    if (!host_.records().lockForReference(tx, "pipeline", deal.pipelineId)) {
      throw Error::notFound("Pipeline not found.");
    }
    const Json stage = requireStage(tx, deal.stageId, deal.pipelineId);
    deal.probability = in.probability.value ? *in.probability.value : probabilityOf(stage);
    requireLinks(tx, in);
    store::insert(tx, id, deal, rapport::nowMicros());
    created = dealJson(*store::find(tx, tx.companyId(), id));
    tx.emit("crm.deal.created", created);
  });
  return Response::created(created, "Deal created.");
}

Response DealsRoutes::get(const Request& request) {
  const auto row = store::find(host_.db(), request.identity.companyId, request.param("id"));
  if (!row) throw Error::notFound(kNotFound);
  return Response::ok(dealJson(*row));
}

Response DealsRoutes::update(const Request& request) {
  const DealInput in = validateDeal(request.bodyObject(), Mode::Update, links_);
  const std::string& id = request.param("id");
  Json updated;
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    const auto row = store::findForUpdate(tx, id);
    if (!row) throw Error::notFound(kNotFound);
    Deal deal = store::fromRow(*row);
    const std::vector<std::string> tagsBefore = deal.tags;
    if (!merge(in, deal)) {  // nothing to change: no write, no event
      updated = dealJson(*row);
      return;
    }
    if (in.probability.isNull()) {  // back to the stage's
      const auto stage = host_.records().fetch(tx, tx.companyId(), "stage", deal.stageId,
                                               rapport::RecordLock::None);
      if (!stage) throw Error::notFound("Stage not found.");
      deal.probability = probabilityOf(*stage);
    }
    requireLinks(tx, in);
    store::update(tx, id, deal, tagsBefore, rapport::nowMicros());
    updated = dealJson(*store::find(tx, tx.companyId(), id));
    tx.emit("crm.deal.updated", updated);
  });
  return Response::ok(updated, "Deal updated.");
}

Response DealsRoutes::remove(const Request& request) {
  const std::string& id = request.param("id");
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    if (!store::remove(tx, id)) throw Error::notFound(kNotFound);
    host_.records().deleted(tx, "deal", id);  // activities unlink it
    tx.emit("crm.deal.deleted", Json::object({{"id", id}}));
  });
  return Response::ok(Json::object({{"id", id}}), "Deal deleted.");
}

Response DealsRoutes::moveStage(const Request& request) {
  const StageMove move = validateStageMove(request.bodyObject());
  const std::string& id = request.param("id");
  Json moved;
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    const auto row = store::findForUpdate(tx, id);
    if (!row) throw Error::notFound(kNotFound);
    Deal deal = store::fromRow(*row);
    if (deal.status != kOpen) throw Error::conflict("The deal is closed.");
    const std::string pipelineId = move.pipelineId.value_or(deal.pipelineId);
    if (pipelineId != deal.pipelineId &&
        !host_.records().lockForReference(tx, "pipeline", pipelineId)) {
      throw Error::notFound("Pipeline not found.");
    }
    if (move.stageId == deal.stageId && pipelineId == deal.pipelineId) {
      moved = dealJson(*row);  // the same stage: no write, no event
      return;
    }
    requireStage(tx, move.stageId, pipelineId);
    const std::string previousStage = deal.stageId;
    const std::string previousPipeline = deal.pipelineId;
    deal.stageId = move.stageId;
    deal.pipelineId = pipelineId;  // the probability stays (docs/modules/deals.md)
    store::update(tx, id, deal, deal.tags, rapport::nowMicros());
    moved = dealJson(*store::find(tx, tx.companyId(), id));
    Json data = moved;
    data.set("previous_stage_id", previousStage);
    if (previousPipeline != pipelineId) data.set("previous_pipeline_id", previousPipeline);
    tx.emit("crm.deal.stage_changed", data);
  });
  return Response::ok(moved, "Deal moved.");
}

Response DealsRoutes::win(const Request& request) {
  const Win in = validateWin(request.bodyObject());
  return transition(request, "crm.deal.won", "Deal won.", [&](Deal& deal) {
    if (deal.status != kOpen) throw Error::conflict("The deal is already closed.");
    deal.status = kWon;
    deal.wonAt = in.wonAt;
    in.notes.applyTo(deal.notes);
  });
}

Response DealsRoutes::lose(const Request& request) {
  const Loss in = validateLoss(request.bodyObject());
  return transition(request, "crm.deal.lost", "Deal lost.", [&](Deal& deal) {
    if (deal.status != kOpen) throw Error::conflict("The deal is already closed.");
    deal.status = kLost;
    deal.lostAt = in.lostAt;
    deal.lostReason = in.reason;
  });
}

Response DealsRoutes::reopen(const Request& request) {
  return transition(request, "crm.deal.updated", "Deal reopened.", [](Deal& deal) {
    if (deal.status == kOpen) throw Error::conflict("The deal is already open.");
    deal.status = kOpen;
    deal.wonAt.reset();
    deal.lostAt.reset();
    deal.lostReason.reset();
  });
}

Response DealsRoutes::transition(const Request& request, const std::string& event,
                                 const std::string& message,
                                 const std::function<void(Deal&)>& change) {
  const std::string& id = request.param("id");
  Json changed;
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    const auto row = store::findForUpdate(tx, id);
    if (!row) throw Error::notFound(kNotFound);
    Deal deal = store::fromRow(*row);
    change(deal);
    store::update(tx, id, deal, deal.tags, rapport::nowMicros());
    changed = dealJson(*store::find(tx, tx.companyId(), id));
    tx.emit(event, changed);
  });
  return Response::ok(changed, message);
}

Json DealsRoutes::requireStage(Tx& tx, const std::string& stageId,
                               const std::string& pipelineId) const {
  std::optional<Json> stage =
      host_.records().fetch(tx, tx.companyId(), "stage", stageId, rapport::RecordLock::Share);
  if (!stage) throw Error::notFound("Stage not found.");
  if ((*stage)["pipeline_id"] != Json(pipelineId)) {
    throw Error::invalidField("stage_id", "The stage does not belong to the pipeline.");
  }
  return std::move(*stage);
}

void DealsRoutes::requireLinks(Tx& tx, const DealInput& in) const {
  const rapport::RecordDirectory& records = host_.records();
  if (in.contactId.value && !records.lockForReference(tx, "contact", *in.contactId.value)) {
    throw Error::notFound("Contact not found.");
  }
  if (in.companyId.value && !records.lockForReference(tx, "company", *in.companyId.value)) {
    throw Error::notFound("Company not found.");
  }
  if (in.ownerId.value && !records.lockForReference(tx, "user", *in.ownerId.value)) {
    throw Error::notFound("Owner not found.");
  }
}

void augmentPipelines(rapport::Queryable& db, const std::string& companyId,
                      Json::Array& pipelines) {
  std::vector<std::string> ids;
  for (const Json& pipeline : pipelines) {
    if (pipeline["id"].isString()) ids.push_back(pipeline["id"].asString());
  }
  const PipelineTotals totals = store::stageTotals(db, companyId, ids);
  static const std::map<std::string, StageTotals> kNone;
  for (Json& pipeline : pipelines) {
    if (!pipeline["id"].isString()) continue;
    const auto found = totals.find(pipeline["id"].asString());
    const std::map<std::string, StageTotals>& stages =
        found == totals.end() ? kNone : found->second;
    StageTotals sum;
    for (const auto& [stageId, stageTotals] : stages) {
      sum.count += stageTotals.count;
      sum.value += stageTotals.value;
    }
    pipeline.set("deals_count", sum.count);
    pipeline.set("deals_value", sum.value);
    Json* stageList = pipeline.find("stages");
    if (stageList == nullptr || !stageList->isArray()) continue;
    for (Json& stage : stageList->asArray()) {
      if (!stage["id"].isString()) continue;
      const auto own = stages.find(stage["id"].asString());
      const StageTotals t = own == stages.end() ? StageTotals{} : own->second;
      stage.set("deals_count", t.count);
      stage.set("deals_value", t.value);
    }
  }
}

void augmentStages(rapport::Queryable& db, const std::string& companyId, Json::Array& stages) {
  std::vector<std::string> pipelineIds;
  for (const Json& stage : stages) {
    if (stage["pipeline_id"].isString()) pipelineIds.push_back(stage["pipeline_id"].asString());
  }
  const PipelineTotals totals = store::stageTotals(db, companyId, pipelineIds);
  for (Json& stage : stages) {
    if (!stage["pipeline_id"].isString() || !stage["id"].isString()) continue;
    StageTotals own;
    if (const auto pipeline = totals.find(stage["pipeline_id"].asString());
        pipeline != totals.end()) {
      if (const auto found = pipeline->second.find(stage["id"].asString());
          found != pipeline->second.end()) {
        own = found->second;
      }
    }
    stage.set("deals_count", own.count);
    stage.set("deals_value", own.value);
  }
}

}  // namespace deals
