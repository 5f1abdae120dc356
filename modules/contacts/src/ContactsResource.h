// The contact as a declaration of the record engine (rapport/resource.h):
// what it stores, how clients query it and what it answers. The module
// installs it; the tests build its schema from it.
#pragma once

#include <vector>

#include "rapport/db.h"
#include "rapport/resource.h"

namespace contacts {

// The declaration (docs/modules/contacts.md lists the fields and rules).
rapport::ResourceSpec contactsSpec();

// The module's migrations: the engine's, which stands for the hand-written
// ones the module shipped up to SDK 7 (0005_contacts, 0006_contact_listing).
std::vector<rapport::Migration> migrations();

}  // namespace contacts
