// contacts: the people a company works with (docs/modules/contacts.md).
// This file is the module's table of contents: what it is, what it stores,
// the events it emits, the record type it owns and the routes it serves.
#include <memory>

#include "ContactsApiDoc.h"
#include "ContactsJson.h"
#include "ContactsQuery.h"
#include "ContactsRoutes.h"
#include "ContactsStore.h"
#include "ContactsTables.h"
#include "rapport/sdk.h"

namespace contacts {
namespace {

using rapport::Request;

class ContactsModule final : public rapport::Module {
 public:
  rapport::ModuleInfo info() const override {
    return {.name = "contacts",
            .version = "1.0.0",
            .description = "Contacts: the people a company works with.",
            .dependencies = {},
            .optional = {"companies"}};
  }

  void setup(rapport::Host& host, rapport::Registry& registry) override {
    const bool companiesEnabled = host.moduleEnabled("companies");
    routes_ = std::make_unique<ContactsRoutes>(host, companiesEnabled);

    for (rapport::Migration& migration : contacts::migrations()) {
      registry.migration(std::move(migration));
    }
    registry.eventType("crm.contact.created", "A contact was created.");
    registry.eventType("crm.contact.updated", "A contact was updated.");
    registry.eventType("crm.contact.deleted", "A contact was deleted.");
    // Other modules check a contact through the record directory (exists,
    // key-share-locking it on PostgreSQL for a reference about to be written)
    // or read it as GET shows it (fetch).
    registry.recordType(
        "contact",
        {.exists = &store::exists,
         .fetch = [](rapport::Queryable& db, const std::string& companyId, const std::string& id,
                     rapport::RecordLock lock) -> std::optional<rapport::Json> {
           const auto row = store::find(db, companyId, id, lock);
           if (!row) return std::nullopt;
           return contactJson(*row);
         },
         .path = "/crm/contacts/{id}",
         .query = contactsQuery()});

    registry.route("GET", "/crm/contacts", [this](const Request& r) { return routes_->list(r); });
    registry.route("POST", "/crm/contacts",
                   [this](const Request& r) { return routes_->create(r); });
    registry.route("POST", "/crm/contacts/search",
                   [this](const Request& r) { return routes_->search(r); });
    registry.route("GET", "/crm/contacts/{id}",
                   [this](const Request& r) { return routes_->get(r); });
    registry.route("PATCH", "/crm/contacts/{id}",
                   [this](const Request& r) { return routes_->update(r); });
    registry.route("DELETE", "/crm/contacts/{id}",
                   [this](const Request& r) { return routes_->remove(r); });

    // Links to CRM companies exist only while the companies module is enabled.
    if (companiesEnabled) {
      registry.route("GET", "/crm/companies/{id}/contacts",
                     [this](const Request& r) { return routes_->listOfCompany(r); });
      // A deleted CRM company leaves its contacts unlinked (no contact events).
      registry.onRecordDeleted("company", [](rapport::Tx& tx, const std::string& id) {
        store::unlinkCompany(tx, id, rapport::nowMicros());
      });
    }
    describeContactsRoutes(registry, companiesEnabled);
    registry.batch("/crm/contacts", {.upsertBy = "email", .match = &store::findIdByEmail});
  }

 private:
  std::unique_ptr<ContactsRoutes> routes_;  // used by the route handlers until stop()
};

}  // namespace
}  // namespace contacts

RAPPORT_MODULE(contacts::ContactsModule, "contacts", "1.0.0")
