// Disabling a webhook, the one way (docs/modules/webhooks.md,
// "Self-healing"): in one transaction of its company, the webhook's row
// (made inactive by `mark`, which says whether it was), its pending
// deliveries paused, and its `webhook.disabled` event; then a warning in
// the log and a mail to the company's owners. Used by the health check
// (every delivery failing for too long) and by the deliveries (a receiver
// answering 410 Gone).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "health/HealthStore.h"
#include "rapport/module.h"

namespace rapport::webhooks {

inline constexpr const char* kWebhookDisabledEvent = "webhook.disabled";

// What `mark` does: disables the webhook in `tx` and returns its streak, or
// nullopt when it should not be disabled (then nothing else happens).
using DisableMark = std::function<std::optional<Streak>(Tx& tx)>;

// Why, in a few words, from the streak ("every delivery to it has failed
// since ..."): the log line's and the owners' notice's.
using DisableReason = std::function<std::string(const Streak& streak)>;

// Returns whether the webhook was disabled.
bool disableWebhook(Host& host, const std::string& companyId, const std::string& id,
                    const DisableMark& mark, const DisableReason& why);

// The 410 Gone path: disables the webhook if it is still active.
void disableGoneWebhook(Host& host, const std::string& companyId, const std::string& id);

}  // namespace rapport::webhooks
