// The tiles a pl.at region hands on: the variables it defines that are live when it ends
// (read by a later statement, or by a later iteration of a loop around it, before being
// defined again). PyPTO's outliner makes exactly these the outputs of the region's InCore
// function; the task graph (enable_dep_gen) records them as windows the task wrote, so that
// a later task reading one depends on it.
#pragma once

#include <nlohmann/json.hpp>

#include <unordered_map>
#include <vector>

namespace pypto_golden::sim {

// Per "at" statement of `function` (IR.md's FUNCTION object), by the address of its JSON
// object: the slots it defines that are live when it ends, ascending. Regions with none are
// left out.
std::unordered_map<const nlohmann::json*, std::vector<int>> region_outputs(const nlohmann::json& function);

}  // namespace pypto_golden::sim
