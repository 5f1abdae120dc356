// Reads PostgreSQL result rows into rapport::Row as Poco fetches them.
//
// A Poco extraction object that Poco calls once per fetched row. Poco's own
// typed extraction is not used because it is lossy here: its PostgreSQL
// BIGINT parsing rounds integers below -2^53. Each value's exact text form is
// converted by column type instead. (SQLite statements do not go through Poco:
// SqliteStatement.)
#pragma once

#include <Poco/Data/AbstractExtraction.h>
#include <Poco/Data/MetaColumn.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "rapport/db.h"

namespace rapport::host {

class ResultCollector : public Poco::Data::AbstractExtraction {
 public:
  // Rows gathered since the last reset(), moved out.
  std::vector<Row> takeRows() { return std::move(rows_); }

  std::size_t numOfColumnsHandled() const override { return 1; }
  std::size_t numOfRowsHandled() const override { return rows_.size(); }
  std::size_t numOfRowsAllowed() const override { return static_cast<std::size_t>(-1); }
  std::size_t extract(std::size_t pos) override;
  void reset() override;
  Poco::Data::AbstractPreparation::Ptr createPreparation(PreparatorPtr&, std::size_t) override {
    return nullptr;  // Neither connector prepares extractions.
  }

 protected:
  using Columns = std::shared_ptr<const std::vector<std::string>>;
  // Called on the first row of each execution: learn the columns.
  virtual Columns describe() = 0;
  virtual Value read(std::size_t column) = 0;
  virtual void forget() {}

 private:
  Columns columns_;
  std::vector<Row> rows_;
};

// PostgreSQL: text values typed by Poco's column metadata (from the OID).
class PostgresResultCollector final : public ResultCollector {
 public:
  // Poco keeps column metadata on the statement and exposes no count: the
  // lookup throws past the last column.
  using MetaLookup = std::function<const Poco::Data::MetaColumn&(std::size_t)>;
  explicit PostgresResultCollector(MetaLookup meta) : meta_(std::move(meta)) {}

 protected:
  Columns describe() override;
  Value read(std::size_t column) override;

 private:
  MetaLookup meta_;
  std::vector<Poco::Data::MetaColumn::ColumnDataType> types_;
  Columns columns_;  // a prepared statement's columns never change
};

}  // namespace rapport::host
