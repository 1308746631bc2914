#include "sim/ops/int8_gemm.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>

namespace pypto_golden::sim::ops {
namespace {

std::atomic<bool> g_disabled{false};

// The integer gemm against the int64 product on operands that catch a saturating kernel:
// 127 * -128 in every pair of a row (a 16-bit pair sum overflows), and random values
// including -128 * -128.
bool matches_exact_product() {
  const auto i8 = at::TensorOptions().dtype(at::kChar);
  const at::Tensor hi = at::full({3, 64}, 127, i8), lo = at::full({64, 5}, -128, i8);
  const at::Generator gen = at::detail::createCPUGenerator(20261207);
  const at::Tensor a = at::randint(-128, 128, {7, 300}, gen, i8);
  const at::Tensor b = at::randint(-128, 128, {300, 9}, gen, i8);
  for (const auto& [l, r] : {std::pair{hi, lo}, std::pair{a, b}, std::pair{a, b.t().contiguous().t()}})
    if (!at::equal(at::_int_mm(l, r).to(at::kLong), at::mm(l.to(at::kLong), r.to(at::kLong)))) return false;
  return true;
}

bool decide() {
#if defined(__x86_64__) && defined(__GNUC__)
  if (!__builtin_cpu_supports("avx512vnni")) return false;
#else
  return false;
#endif
  if (std::getenv("ONEDNN_MAX_CPU_ISA") != nullptr || std::getenv("DNNL_MAX_CPU_ISA") != nullptr) return false;
  try {
    return matches_exact_product();
  } catch (const std::exception&) {
    return false;  // no CPU kernel for _int_mm in this torch
  }
}

// `t`'s bytes as a tensor of its own. The integer gemm asks its operands for writable
// pointers, which copies a copy-on-write operand (an In weight shared with the host), and
// from several workers at once trips torch's assertion on that copy.
at::Tensor plain_alias(const at::Tensor& t) {
  return at::from_blob(const_cast<void*>(t.const_data_ptr()), t.sizes(), t.strides(), t.options());
}

}  // namespace

bool int8_gemm_usable() {
  static const bool usable = decide();
  return usable && !g_disabled.load(std::memory_order_relaxed);
}

void disable_int8_gemm_for_tests(bool disabled) { g_disabled.store(disabled); }

std::optional<at::Tensor> int8_gemm(const at::Tensor& lhs, const at::Tensor& rhs) {
  if (lhs.scalar_type() != at::kChar || rhs.scalar_type() != at::kChar) return std::nullopt;
  if (lhs.dim() < 2 || rhs.dim() < 2 || lhs.dim() > 3 || rhs.dim() > 3) return std::nullopt;
  if (lhs.numel() == 0 || rhs.numel() == 0) return std::nullopt;  // no bytes to alias; the FP32 path makes the zeros
  // At most one batch axis, on either side or both: equal, or of extent 1 on one side
  // (broadcast), as at::matmul pairs them. Two 2-D operands are one batch of one.
  const int64_t lb = lhs.dim() == 3 ? lhs.size(0) : 1, rb = rhs.dim() == 3 ? rhs.size(0) : 1;
  if ((lb != rb && lb != 1 && rb != 1) || !int8_gemm_usable()) return std::nullopt;
  const at::Tensor l = plain_alias(lhs), r = plain_alias(rhs);
  const bool batched = lhs.dim() == 3 || rhs.dim() == 3;
  const int64_t batch = std::max(lb, rb), m = lhs.size(-2), n = rhs.size(-1);
  at::Tensor prod = at::empty(batched ? at::IntArrayRef{batch, m, n} : at::IntArrayRef{m, n},
                              lhs.options().dtype(at::kInt));
  for (int64_t b = 0; b < batch; ++b) {
    at::Tensor out = batched ? prod[b] : prod;
    at::_int_mm_out(out, l.dim() == 3 ? l[lb == 1 ? 0 : b] : l, r.dim() == 3 ? r[rb == 1 ? 0 : b] : r);
  }
  return prod;
}

}  // namespace pypto_golden::sim::ops
