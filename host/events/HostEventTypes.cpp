#include "events/HostEventTypes.h"

namespace rapport::host {

void declareHostEventTypes(EventBus& bus) {
  // data: the definition as GET <path>/fields/{key} answers it, with
  // record_type (rapport::customFieldJson).
  bus.declare({"crm.field.created", "A custom field was created.", kHostEventOwner});
  bus.declare({"crm.field.updated", "A custom field was updated.", kHostEventOwner});
  bus.declare({"crm.field.deleted", "A custom field was deleted.", kHostEventOwner});
}

}  // namespace rapport::host
