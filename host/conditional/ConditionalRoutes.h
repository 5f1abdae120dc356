// Conditional requests on records (docs/api-choices.md "Conditional
// requests"), for every record type whose owner gave it a path
// (rapport::RecordType::path), first-party or not:
//   - GET <path>: the answer carries the record's strong ETag
//     (EntityTag.h); If-None-Match matching it answers 304 with no body;
//   - PATCH or DELETE <path>, and POST, PUT or PATCH <path>/<action>, with
//     If-Match: the host reads the record with RecordLock::Update at the
//     start of the first transaction the handler opens
//     (storage/RequestTransactions.h) and answers 412, nothing written,
//     when its tag matches none of If-Match's. The same check runs once as
//     a plain read before the handler, so a handler that writes nothing
//     answers 412 too. A record that does not exist skips the condition
//     (RFC 9110 §13.2.1): the handler's 404 answers.
// Lists, creations and every other route are not conditional. Malformed
// If-Match or If-None-Match lists are a 400 on the routes that read them.
//
// Threading: built once at start-up; before() and after() run on any
// number of threads.
#pragma once

#include <string>
#include <unordered_map>

#include "http/Exchange.h"
#include "http/Router.h"
#include "rapport/db.h"
#include "rapport/http.h"
#include "rapport/records.h"
#include "records/Directory.h"
#include "storage/RequestTransactions.h"

namespace rapport::host {

class ConditionalRoutes {
 public:
  // Reads `router`'s routes under `versionPrefix` ("/v1") against
  // `records`. `directory` and `db` must outlive this object. Throws
  // std::logic_error when a path names no GET route of its owner or has no
  // parameter.
  ConditionalRoutes(const Router& router, const std::vector<RecordPath>& records,
                    const std::string& versionPrefix, const rapport::RecordDirectory& directory,
                    rapport::Database& db);

  // Before the handler of `route`. Throws rapport::Error 400 (malformed
  // If-Match) or 412. Returns the check the request's first transaction
  // runs (RequestTransactions::Hooks::first), or an empty one when the
  // request is not conditional.
  RequestTransactions::Hook before(const Route& route, const rapport::Request& request) const;

  // After the handler of a 200 GET of a record: adds its ETag to
  // `response`, and returns true when If-None-Match matches it (the
  // pipeline then answers 304 with that ETag and no body). Throws
  // rapport::Error 400 for a malformed If-None-Match.
  bool after(const Route& route, const rapport::Request& request,
             rapport::Response& response) const;

  // What a route is, for the API document: a record's GET (ETag,
  // If-None-Match, 304), a record's write (If-Match, 412), or neither.
  enum class Kind { None, Read, Write };
  Kind kindOf(const Route& route) const;

 private:
  struct Target {
    Kind kind;
    std::string type;
    std::string param;  // the path parameter holding the record's id
  };

  const Target* find(const Route& route) const;
  // The record's current tag, or empty when it does not exist.
  std::string currentTag(rapport::Queryable& db, const std::string& companyId, const Target& target,
                         const std::string& id, rapport::RecordLock lock) const;

  std::unordered_map<const Route*, Target> targets_;
  const rapport::RecordDirectory& directory_;
  rapport::Database& db_;
};

}  // namespace rapport::host
