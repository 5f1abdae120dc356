// The record directory: how one module checks, reads, refuses the deletion
// of, and unlinks another module's records without including its headers.
//
// A module that owns a record type registers it (Registry::recordType) with
// a RecordType: an `exists` check and, when it offers one, a `fetch` that
// returns the record as its GET returns it (the read contract; the owner's
// docs/modules/<name>.md lists the fields other modules may rely on).
//
// A module that keeps references to another module's records:
//   - checks a reference it is about to write with lockForReference() inside
//     its write transaction (or fetch(..., RecordLock::Share) when it also
//     needs fields of the record): the record then cannot be deleted before
//     that transaction ends, so no reference is left dangling;
//   - may refuse the deletion of a record it refers to (Registry::guardDeletion:
//     pipelines with deals answer 409);
//   - clears its references when such a record is deleted
//     (Registry::onRecordDeleted);
//   - may add fields of its own to the owner's records as they are shown
//     (Registry::augment: deals adds deals_count and deals_value to pipelines).
// The owning module calls deleted() inside its delete transaction after
// deleting (or locking) the row, so the guards see the last committed
// references, and the record and every reference go in one commit.
//
// Built in: "user" (exists = the user is a member of the company; no fetch).
//
// Threading: shared by all threads; registration happens only at start-up.
// The Queryable or Tx passed in belongs to the calling thread (db.h).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "rapport/db.h"
#include "rapport/export.h"
#include "rapport/json.h"
#include "rapport/record_query.h"

namespace rapport {

// What a lookup does to the record it finds.
enum class RecordLock {
  None,  // a plain read: a sub-list's parent check, a read for display
  // A reference to the record is about to be written in this transaction:
  // keep the record until it commits. PostgreSQL: SELECT ... FOR KEY SHARE
  // (a concurrent delete waits for the commit, then its reactions, running
  // in new statements, see and clear the new reference; a delete that came
  // first makes the lookup wait and find nothing). SQLite: the write
  // transaction already holds the database's write lock; nothing more.
  Share,
  // Since 6.0. The record is about to be changed or deleted in this
  // transaction (the host's If-Match check, docs/api-choices.md): no other
  // transaction may change it until this one ends. PostgreSQL: SELECT ...
  // FOR UPDATE; SQLite: the write lock, as for Share.
  Update,
};

// The clause an owner appends to its lookup's SELECT for `lock`:
// " FOR KEY SHARE" for Share and " FOR UPDATE" for Update on PostgreSQL,
// "" otherwise.
RAPPORT_SDK_API std::string_view lockClause(Dialect dialect, RecordLock lock);

// True when the record `id` exists in `companyId`; takes `lock` (see above)
// when `db` is a transaction.
using RecordExists = std::function<bool(Queryable& db, const std::string& companyId,
                                        const std::string& id, RecordLock lock)>;
// The record as the owner's GET returns it, or nullopt when it does not
// exist in `companyId`; takes `lock` like RecordExists.
using RecordFetch = std::function<std::optional<Json>(Queryable& db, const std::string& companyId,
                                                      const std::string& id, RecordLock lock)>;
// What the owner of a record type lends the directory. `exists` is required;
// `fetch` is optional (fetch() of a type without one throws std::logic_error).
//
// `path` (since 6.0; needs `fetch`) is the record's own route, relative to
// the version prefix: "/crm/contacts/{id}". The host then makes the record
// conditional (docs/api-choices.md "Conditional requests"), with nothing
// more to write in the module:
//   - GET path answers a strong ETag (a digest of the answer's data) and 304
//     to a matching If-None-Match;
//   - PATCH and DELETE of path, and POST, PUT or PATCH of a route one
//     literal segment below it (path + "/win", "/stage"...), honour If-Match: the host fetches the
//     record with RecordLock::Update at the start of the first transaction
//     the handler opens and answers 412, with nothing written, when its ETag
//     matches none of the client's. The record as fetch() returns it, with
//     its augments, must therefore be exactly the data its GET answers.
//
// `query` (since 7.0; needs `fetch`) is the type's query language
// (record_query.h): other types' lists then filter through references to
// it ("company.industry" on contacts) and embed it (`include=company`).
struct RecordType {
  RecordExists exists;
  RecordFetch fetch;
  std::string path = {};
  std::optional<RecordQuery> query = std::nullopt;
  // Since 10.0. The scope name API keys need to read it ("contacts": a
  // hop filter or an include of it needs contacts:read); empty: none may.
  std::string scope = {};
};

// Asked inside the deleting transaction before any reaction runs: nullopt
// lets the deletion go on; a message refuses it, and deleted() throws
// rapport::Error 409 with that message ("The pipeline has deals.").
using RecordDeletionGuard =
    std::function<std::optional<std::string>(Tx& tx, const std::string& id)>;
// Clears references to a deleted record; runs in the deleting transaction.
using RecordDeleted = std::function<void(Tx& tx, const std::string& id)>;
// Adds fields to records of another module as they are shown: `records` is
// an array of them (each an object as the owner's GET returns it), from one
// company. Called once per list or read, so read what every record needs in
// one query. Must not remove or rename the owner's fields.
using RecordAugment =
    std::function<void(Queryable& db, const std::string& companyId, Json::Array& records)>;

class RAPPORT_VISIBLE RecordDirectory {
 public:
  virtual ~RecordDirectory() = default;
  // True when an enabled module owns record type `type` ("contact", "company"...).
  virtual bool knows(const std::string& type) const = 0;
  // True when the record exists in the company (a plain read). False for
  // unknown types.
  virtual bool exists(Queryable& db, const std::string& companyId, const std::string& type,
                      const std::string& id) const = 0;
  // True when the record exists in tx's company, and then keeps it from being
  // deleted until `tx` ends (RecordLock::Share). Call it for every reference
  // to another module's record that `tx` writes. False for unknown types.
  virtual bool lockForReference(Tx& tx, const std::string& type, const std::string& id) const = 0;
  // The record as its owner's GET returns it, or nullopt (absent, another
  // company's, or an unknown type). Throws std::logic_error when the owner
  // offers no fetch.
  virtual std::optional<Json> fetch(Queryable& db, const std::string& companyId,
                                    const std::string& type, const std::string& id,
                                    RecordLock lock) const = 0;
  // Since 7.0. The query language the owner of `type` declared
  // (RecordType::query), or null (unknown type, or none declared).
  virtual const RecordQuery* query(const std::string& type) const = 0;
  // Lets every augment registered for `type` add its fields to `records`.
  virtual void augment(Queryable& db, const std::string& companyId, const std::string& type,
                       Json::Array& records) const = 0;
  // The owner calls it inside its delete transaction, after deleting (or
  // locking) the record's row: asks every guard of (type, id) first (throws
  // rapport::Error 409 with the first refusal's message), then runs every
  // onRecordDeleted reaction.
  virtual void deleted(Tx& tx, const std::string& type, const std::string& id) const = 0;
  // Since 10.0. RecordType::scope of `type`; empty for an unknown type.
  virtual std::string scope(const std::string& type) const = 0;
};

}  // namespace rapport
