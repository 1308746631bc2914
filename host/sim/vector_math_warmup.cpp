#include "sim/vector_math_warmup.h"

#include <ATen/ATen.h>

#include <atomic>
#include <mutex>

namespace pypto_golden::sim {
namespace {
std::atomic<bool> g_warmed{false};
}  // namespace

void warm_up_vector_math() {
  static std::once_flag once;
  std::call_once(once, [] {
    at::AutoDispatchBelowADInplaceOrView no_autograd;
    // Inside every function's domain (erfinv's (-1, 1), log's (0, inf)).
    for (const auto dtype : {at::kFloat, at::kDouble}) {
      const at::Tensor x = at::linspace(0.1, 0.6, 256, at::TensorOptions().dtype(dtype));
      for (at::Tensor (*fn)(const at::Tensor&) :
           {&at::acos, &at::asin, &at::atan, &at::cos, &at::erf, &at::erfc, &at::erfinv, &at::exp, &at::log,
            &at::log10, &at::sin, &at::sqrt, &at::tan, &at::tanh, &at::trunc})
        (void)fn(x);
    }
    g_warmed.store(true);
  });
}

bool vector_math_warmed_up() { return g_warmed.load(); }

}  // namespace pypto_golden::sim
