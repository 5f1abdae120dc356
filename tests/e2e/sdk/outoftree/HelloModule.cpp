// hello: the smallest module a third party can write, built against the
// installed SDK only (e2e.sdk). One public route, GET /v1/hello.
#include "rapport/sdk.h"

namespace {

class HelloModule final : public rapport::Module {
 public:
  rapport::ModuleInfo info() const override {
    return {.name = "hello",
            .version = "1.0.0",
            .description = "Says hello (out-of-tree SDK test).",
            .dependencies = {},
            .optional = {}};
  }

  void setup(rapport::Host&, rapport::Registry& registry) override {
    registry.route(
        "GET", "/hello",
        [](const rapport::Request&) {
          return rapport::Response::ok(rapport::Json::object({{"greeting", "hello"}}), "Hello.");
        },
        {.access = rapport::Access::Public, .roles = {}});
  }
};

}  // namespace

RAPPORT_MODULE(HelloModule, "hello", "1.0.0")
