// The definitions' routes of one record type (custom_fields.h), the
// unlinking of its reference values and the purge of deleted fields. Private
// to the SDK library: the record engine installs them (resource/handlers.cpp).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "internal.h"
#include "rapport/http.h"
#include "rapport/jobs.h"
#include "rapport/module.h"

namespace rapport::custom_fields {

class DefinitionRoutes {
 public:
  DefinitionRoutes(Host& host, DefinitionContext context, std::shared_ptr<Cache> cache,
                   JobHandle purge);

  Response list(const Request& request) const;
  Response get(const Request& request) const;
  Response create(const Request& request) const;
  Response update(const Request& request) const;
  Response remove(const Request& request) const;

  // The definitions a definition change reads in its transaction, under
  // the exclusive lock (on PostgreSQL) that record writes take shared.
  CustomFieldSet forChange(Tx& tx) const;
  // The same for a record's write (shared): the company's stamp
  // (custom_field_versions, changed by every definition change) is read in
  // the transaction, and the definitions themselves only when it differs
  // from the stamp this instance last read them under; otherwise the set
  // read then.
  std::shared_ptr<const CustomFieldSet> forRecordWrite(Tx& tx) const;
  // The definitions as they are now, read without the cache.
  CustomFieldSet current(Queryable& db, const std::string& companyId) const;

  // A deleted record of `targetType` (`id`): the reference values pointing
  // at it in `table`'s records become null (without events).
  void unlink(Tx& tx, const std::string& targetType, const std::string& id,
              const std::string& table) const;

  static Job purgeJob(Database& db, const std::string& recordType);
  static void purgeDeleted(Database& db, const std::string& recordType, JobContext& context);

  const std::shared_ptr<Cache>& cache() const { return cache_; }
  void setPurge(JobHandle purge) { purge_ = std::move(purge); }

 private:
  void changed(Tx& tx) const;

  Host& host_;
  DefinitionContext context_;
  std::shared_ptr<Cache> cache_;
  JobHandle purge_;
  // forRecordWrite's sets per company, with the stamp each was read under.
  struct Stamped {
    std::string stamp;
    std::shared_ptr<const CustomFieldSet> fields;
  };
  mutable std::mutex stampedMutex_;
  mutable std::map<std::string, Stamped> stamped_;
};

}  // namespace rapport::custom_fields
