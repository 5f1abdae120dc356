// What a pipeline or stage request may carry: bodies of POST and PATCH and of
// the reorder. Every rule that needs no database lives here; rules that do
// (the reorder names exactly the pipeline's stages) live in PipelinesRoutes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "rapport/json.h"
#include "rapport/validation.h"

namespace pipelines {

// The most stages a pipeline may have (create's array, and POST of a stage).
inline constexpr std::size_t kMaxStages = 50;

// A validated stage body. Each Field tells apart absent (PATCH leaves it
// alone) and a value; null is refused (422) for every field.
struct StageInput {
  rapport::Field<std::string> name;
  rapport::Field<std::int64_t> order;        // 1 or more
  rapport::Field<std::int64_t> probability;  // 0 to 100
};

// A validated pipeline body.
struct PipelineInput {
  rapport::Field<std::string> name;
  rapport::Field<bool> isDefault;
  // Create only: the stages to write, already in their final order (by the
  // order given, stable; stages without one after those with one, in array
  // order). Their place is their index + 1.
  std::vector<StageInput> stages;
};

enum class Mode { Create, Update };

// Reads a POST (Create: name required, stages allowed) or PATCH (Update: name
// and/or is_default; stages ignored) body. Throws one 422 naming every field
// at fault, nested ones with dotted keys ("stages.0.name").
PipelineInput validatePipeline(const rapport::Json& body, Mode mode);

// Reads a POST (Create: name required) or PATCH (Update) body of a stage.
StageInput validateStage(const rapport::Json& body, Mode mode);

// One entry of a reorder body.
struct StagePlace {
  std::string id;
  std::int64_t order = 0;
};

// Reads PATCH .../stages/reorder {stages: [{id, order}]}: `stages` required,
// ids given once each, orders distinct integers of 1 or more. Returns the
// entries sorted by order. Whether the ids are exactly the pipeline's stages
// is the caller's check (rejectUnlessEveryStage).
std::vector<StagePlace> validateReorder(const rapport::Json& body);

// Throws a 422 on `stages` unless `places` names exactly the stages `ids`.
void rejectUnlessEveryStage(const rapport::Json& body, const std::vector<StagePlace>& places,
                            const std::vector<std::string>& ids);

}  // namespace pipelines
