// The named schemas of the API document (components/schemas): the host's
// own (Error, ValidationError, PageMeta) and those modules register with
// Registry::schema. schema::ref(name) points here.
//
// Threading: add() only during start-up; find() and all() are const and
// safe from any thread afterwards.
#pragma once

#include <map>
#include <string>

#include "rapport/json.h"

namespace rapport::host {

class ApiSchemas {
 public:
  // Holds the host's schemas.
  ApiSchemas();

  // Throws std::logic_error when `name` is taken (naming both owners) or is
  // not a valid component name (letters, digits, '.', '_', '-').
  void add(const std::string& name, rapport::Json schema, const std::string& owner);

  // The schema named `name`, or nullptr.
  const rapport::Json* find(const std::string& name) const;

  // Every schema by name, as components/schemas.
  rapport::Json all() const;

 private:
  struct Entry {
    rapport::Json schema;
    std::string owner;
  };
  std::map<std::string, Entry> schemas_;
};

}  // namespace rapport::host
