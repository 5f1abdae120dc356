// What a receiver's webhook posts delivered, for the suites that check each
// delivery arrives exactly once (e2e.webhooks' two instances, e2e.instances).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "support/webhooks/Receiver.h"

namespace rapport::test::webhooks {

struct DeliveryTally {
  // How many posts carried each delivery id (X-Service-Delivery).
  std::map<std::string, int> perDelivery;
  // The ids of the records the events were about (the body's data.id).
  std::set<std::string> recordIds;

  // " <delivery> xN" for each delivery posted more than once; "" when none.
  std::string repeated() const;
};

DeliveryTally tallyDeliveries(const std::vector<ReceivedRequest>& requests);

}  // namespace rapport::test::webhooks
