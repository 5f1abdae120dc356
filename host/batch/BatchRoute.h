// POST <collection>/batch for a module that opted in (Registry::batch,
// rapport/batch.h; docs/api-choices.md "Batch writes").
//
// The route belongs to the module, with the access and roles of its POST
// <collection> route, and is described for the API document from that
// route's and PATCH <collection>/{id}'s descriptions (BatchDoc.h). Each item
// runs the module's own handler with a request built like the Pipeline's
// (the caller's identity, the batch's request id and headers, the item's
// data as the body, its id as the path parameter): its own transaction, its
// own events, its own answer. What an item throws becomes its result, as
// the Pipeline would have answered it alone: a rapport::Error its status,
// message and field errors; a busy or lost database a 503; anything else a
// 500, logged with the request id and the module. The whole call counts as
// one request for the rate limit and for an Idempotency-Key.
//
// An upsert matches on its own match_on, else the batch's, else the
// collection's key (BatchSpec::match's `matchOn`, empty then). A batch's
// match_on that the match refuses (a 422 on match_on) is a 422 for the whole
// call, nothing run; an item's own fails that item only.
//
// Threading: registered during setup; the handler runs on any worker thread
// and keeps no state between calls.
#pragma once

#include <string>

#include "http/Router.h"
#include "rapport/batch.h"
#include "rapport/db.h"

namespace rapport::host {

// Adds POST `collection` + "/batch" (`collection` is absolute: "/v1/crm/
// contacts") owned by `owner`. Throws std::logic_error when `owner` has no
// POST `collection` or PATCH `collection`/{id} route, when `spec` has only
// one of upsertBy and match, or has a match without a database to run it on.
void registerBatchRoute(Router& router, const std::string& collection, rapport::BatchSpec spec,
                        rapport::Queryable* db, const std::string& owner);

}  // namespace rapport::host
