// Which parameters a function may write: the statements whose target may be a view of the
// parameter and the ops that write an argument in place (OpDef::writes_arg), with a view
// taken to be any value computed from the parameter, except the result of an op that
// returns new memory (OpDef::result_views: pl.matmul's, pl.add's, ...). Over-approximate on purpose: a
// parameter it calls unwritten is never written, which is what lets a dispatch share an
// In tensor's host bytes with the device copy-on-write (Device::upload) without two workers
// ever racing to copy them.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <vector>

namespace pypto_golden::sim {

// What a function (IR.md's FUNCTION object, already checked by the loader) does with its
// parameters, from one analysis of which values may view which parameter.
struct ParamUses {
  // Per parameter: whether its body may write it.
  std::vector<bool> written;
  // Per tensor parameter: whether the body at most writes it, through `write` statements on
  // the parameter's own variable (y[...] = v) and stores into it (pl.store(t, offsets, y),
  // y = pl.assemble(y, src, offsets), neither an atomic add), or the same on bindings of it
  // (variables only ever given another variable's value as it is: a spliced call's
  // parameter or return value): no other variable may view it,
  // nothing reads it (its return aside), it is never otherwise reassigned, passed to a call
  // or dumped. A pure Out
  // such a body writes cannot read an element it did not write, so a dispatch need not
  // poison what the kernel writes (sim/write_log.h).
  std::vector<bool> write_only;
  // A host program's (L3; empty otherwise). Per parameter: whether its body may read it
  // outside its chip launches, that is anywhere but in the ranks (a resident tensor it does
  // not read there may stay on the ranks between dispatches).
  std::vector<bool> read_on_host;
  // Per chip launch (its "launch" node in the function): whether the launch's body may write
  // each parameter. One it does not write a rank in a worker process receives without
  // keeping a copy to find what the launch changed, and sends nothing back.
  std::map<const nlohmann::json*, std::vector<bool>> launch_writes;
};
ParamUses param_uses(const nlohmann::json& function, bool host);

}  // namespace pypto_golden::sim
