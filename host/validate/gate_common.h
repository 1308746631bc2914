// Pieces shared by the validation gates: element loads without copies, runs of contiguous
// elements (a valid prefix, a set of pool rows), the lines gates report in, and Python-exact
// text. Failure lines are unindented (gate_report.h indents them).
#pragma once

#include "tensor/dtype_names.h"
#include "tensor/flat_index.h"  // unravel
#include "tensor/python_repr.h"  // python_round, format_g, ...: Python-exact numbers
#include "validate/gate_report.h"

#include <ATen/core/Tensor.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace pypto_golden {

// The element loops of the gates (their files start with
//   #pragma GCC optimize("no-trapping-math", "fp-contract=off")
// so that GCC vectorises their selects and never fuses a*b+c, which would round differently
// from torch) are compiled twice on x86-64: for AVX2/F16C (x86-64-v3) and for the baseline,
// picked when the library loads.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define PYPTO_GATE_KERNEL __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define PYPTO_GATE_KERNEL
#endif

// Elements are processed in blocks of this many: a vectorised pass per block, then a
// scalar rescan of the block (still in L1) only when it holds something to report.
constexpr int64_t kGateBlock = 1024;

// One element as float32, the precision of the ratio gates (torch's .to(torch.float32)).
inline float load_f32(float v) { return v; }
inline float load_f32(double v) { return static_cast<float>(v); }
inline float load_f32(c10::Half v) { return static_cast<float>(v); }
inline float load_f32(c10::BFloat16 v) { return static_cast<float>(v); }
inline float load_f32(bool v) { return v ? 1.0f : 0.0f; }
template <typename T>
inline float load_f32(T v) { return static_cast<float>(v); }

// Parallel grain of the gates' passes, in elements.
constexpr int64_t kGateGrain = 1 << 16;

// A listed mismatch: logical flat index, both values (as compared) and two gate-specific
// numbers (diff and tol, or abs_diff and rdiff).
struct ListedPoint {
  int64_t index = 0;
  float actual = 0.0f, expected = 0.0f, first = 0.0f, second = 0.0f;
};

// Keeps the `limit` lowest-index points of several chunks.
void keep_first(std::vector<ListedPoint>& points, size_t limit);

// The greatest value with the lowest index among chunks' candidates (index -1: none yet).
template <typename V>
struct BestAt {
  V value = V(-1);
  int64_t index = -1;
  void offer(V v, int64_t i) {
    if (i >= 0 && (index < 0 || v > value || (v == value && i < index))) {
      value = v;
      index = i;
    }
  }
};

// A logical row-major sequence of `count` runs of `len` contiguous elements. Run i starts at
// element base + starts[i] (when given) or base + i * stride of the underlying storage.
struct Runs {
  int64_t count = 1;
  int64_t len = 0;
  int64_t stride = 0;
  int64_t base = 0;
  const int64_t* starts = nullptr;

  int64_t numel() const { return count * len; }
  int64_t start(int64_t i) const { return base + (starts ? starts[i] : i * stride); }
  static Runs whole(int64_t numel) { return Runs{1, numel, numel, 0, nullptr}; }
};

// Calls fn(logical_index, storage_index, n) for each contiguous piece of logical [begin, end).
template <typename F>
void for_each_piece(const Runs& runs, int64_t begin, int64_t end, F&& fn) {
  while (begin < end) {
    const int64_t run = begin / runs.len, offset = begin % runs.len;
    const int64_t n = std::min(runs.len - offset, end - begin);
    fn(begin, runs.start(run) + offset, n);
    begin += n;
  }
}

// What a gate reads of an operand: a CPU, contiguous tensor (no copy when it already is
// one); 8-bit floats come as float32, which holds each of their values exactly.
at::Tensor gate_operand(const at::Tensor& t);

// The leading `valid_rows` entries along `valid_axis` (Python indexing: negative counts from
// the end) of a contiguous tensor, as runs plus the narrowed shape.
struct ValidPrefix {
  std::optional<int64_t> valid_rows;
  int64_t valid_axis = 0;
  bool zero_tail = false;
};

// Fills `runs` and `shape` with the compared region of `actual` (both tensors have its shape).
// Returns the failure line instead: "valid_rows=9 out of range for axis 0 of length 8",
// "valid_axis=2 out of range for shape (8,)" or, with zero_tail, "inactive tail contains N
// nonzero values".
std::optional<std::string> select_valid_prefix(const at::Tensor& actual, const ValidPrefix& prefix, Runs& runs,
                                               std::vector<int64_t>& shape);

// Nonzero elements (NaN counts, -0.0 does not) of a contiguous tensor over the given runs.
int64_t count_nonzero(const at::Tensor& t, const Runs& runs);

struct NonFinite {
  int64_t actual_nan = 0, actual_inf = 0, expected_nan = 0, expected_inf = 0;
  bool any() const { return actual_nan || actual_inf || expected_nan || expected_inf; }
  void add(const NonFinite& o) {
    actual_nan += o.actual_nan;
    actual_inf += o.actual_inf;
    expected_nan += o.expected_nan;
    expected_inf += o.expected_inf;
  }
};

// "illegal values in comparison: actual: NaN=a Inf=b; expected: NaN=c Inf=d"
std::string nonfinite_text(const NonFinite& n);

// A gate parameter as the report prints it: `text` (Python's str of the value the user gave)
// or, when empty, Python's repr of the double.
std::string param_text(const std::string& text, double value);

// The bad-point budget of the ratio gates:
// "error_count=E/N (ratio=x.xxxx%, allowed<=y.yyyy%, threshold=T pts)"
std::string error_count_text(int64_t bad, int64_t numel, double allowed_ratio, int64_t threshold);

// Appends "first K mismatches:" and one "[flat] actual=<.8g>, expected=<.8g>, <first>=<.4g>,
// <second>=<.4g>" line a point. With no point the header keeps an empty line after it (the
// report has always ended "first 0 mismatches:\n").
void append_listed_points(GateLines& lines, const std::vector<ListedPoint>& points, const char* first,
                          const char* second);

// Python's tuple of the multi-dimensional index of flat `flat` in `shape`: "(2, 1)", "(5,)", "()".
std::string unravel_text(int64_t flat, c10::IntArrayRef shape);

// "shape mismatch: actual (4,) vs expected (1,)"
std::string shape_mismatch_text(const at::Tensor& actual, const at::Tensor& expected);

// Whether a dtype is one the gates read (floating, integer or bool).
bool gate_supports(c10::ScalarType type);

// Runs fn(T{}) with T the C++ type of `type` (float, double, Half, BFloat16, int64_t, int32_t,
// int16_t, int8_t, uint8_t, bool); throws std::invalid_argument for any other dtype.
template <typename F>
void dispatch_gate_type(c10::ScalarType type, const char* gate, F&& fn) {
  switch (type) {
    case c10::kFloat: fn(float{}); break;
    case c10::kDouble: fn(double{}); break;
    case c10::kHalf: fn(c10::Half{}); break;
    case c10::kBFloat16: fn(c10::BFloat16{}); break;
    case c10::kLong: fn(int64_t{}); break;
    case c10::kInt: fn(int32_t{}); break;
    case c10::kShort: fn(int16_t{}); break;
    case c10::kChar: fn(int8_t{}); break;
    case c10::kByte: fn(uint8_t{}); break;
    case c10::kBool: fn(bool{}); break;
    default:
      throw std::invalid_argument(std::string(gate) + ": unsupported dtype " + torch_dtype_repr(type));
  }
}

}  // namespace pypto_golden
