#include "sim/located_error.h"

#include "sim/kernel_error.h"

#include <c10/util/Exception.h>

#include <string>

namespace pypto_golden::sim {
namespace {

// "(r=1024, c=0)": the loop indices in force when a statement failed.
std::string loop_context(const Frame& frame) {
  if (frame.active_loop_vars.empty()) return "";
  std::string out = " (";
  for (size_t k = 0; k < frame.active_loop_vars.size(); ++k) {
    int slot = frame.active_loop_vars[k];
    if (k) out += ", ";
    out += frame.function->slot_names[static_cast<size_t>(slot)] + "=" +
           std::to_string(frame.slots[static_cast<size_t>(slot)].i);
  }
  return out + ")";
}

[[noreturn]] void raise_located(const Frame& frame, int line, const std::string& what) {
  throw SimError(frame.function->source_file + ":" + std::to_string(line) + ": " + what + loop_context(frame));
}

}  // namespace

void rethrow_located(const Frame& frame, int line) {
  try {
    throw;
  } catch (const SimError&) {
    throw;
  } catch (const Interrupted&) {
    throw;
  } catch (const KernelError& e) {
    raise_located(frame, line, e.what());
  } catch (const c10::Error& e) {
    raise_located(frame, line, e.what_without_backtrace());
  } catch (const std::exception& e) {
    raise_located(frame, line, e.what());
  }
}

}  // namespace pypto_golden::sim
