// Sort family: sort32, mrgsort (format 1 and 2), gather and its inverse scatter (mask and index
// forms). Sorted data is a row of interleaved (value, index) pairs in FP32 memory: the index
// lane holds the raw 32-bit pattern of the UINT32 index. Sorting is descending and stable
// (ties keep the lower position / the earlier run first); NaN sorts before every number.
#include "sim/kernel_error.h"
#include "sim/ops/op_result.h"
#include "sim/ops/operand_checks.h"
#include "sim/ops/valid_padding.h"
#include "tensor/python_repr.h"
#include "sim/ops/sort_kernels.h"
#include "sim/tensor_copy.h"

#include <ATen/MemoryOverlap.h>

#include <algorithm>

namespace pypto_golden::sim {
namespace {

using ops::Dest;

using sort_kernels::Pair;

// pl.sort32(src, idx): each 32-element block of the last axis sorted into [.., 2N] pairs.
Value sort32(const OpArgs& a, Dest& d) {
  const Value& src_v = a.tensor(0, "src");
  const Value& idx_v = a.tensor(1, "idx");
  const at::Tensor& src = src_v.tensor;
  const at::Tensor& idx = idx_v.tensor;
  if (src.scalar_type() != at::kFloat)
    throw KernelError("pl.sort32: src must be fp32 (the simulator does not model the fp16 pair layout), got " +
                      ops::dtype_str(src.scalar_type()));
  if (src.dim() < 1 || src.size(-1) % 32 != 0)
    throw KernelError("pl.sort32: the last axis of src must be a multiple of 32, got shape " +
                      python_shape_repr(src.sizes()));
  if (idx.scalar_type() != at::kLong && idx.scalar_type() != at::kInt)
    throw KernelError("pl.sort32: idx must be a UINT32 tensor (e.g. pl.arange(0, shape, dtype=pl.UINT32)), got " +
                      ops::dtype_str(idx.scalar_type()));
  if (!idx.sizes().equals(src.sizes()))
    throw KernelError("pl.sort32: idx must have the shape of src " + python_shape_repr(src.sizes()) + ", got " +
                      python_shape_repr(idx.sizes()));
  std::vector<int64_t> shape = src.sizes().vec();
  shape.back() *= 2;
  at::Tensor out = d.out(shape, at::kFloat, {src, idx}, false, src_v.fully_valid());
  at::Tensor s = src.contiguous();
  at::Tensor ic = idx.contiguous();
  at::Tensor o = out.is_contiguous() ? out : at::empty(shape, at::TensorOptions().dtype(at::kFloat));
  const bool wide = ic.scalar_type() == at::kLong;
  sort_kernels::sort32(sort_kernels::active_isa(), s.const_data_ptr<float>(), wide ? nullptr : ic.const_data_ptr<int32_t>(),
                       wide ? ic.const_data_ptr<int64_t>() : nullptr, s.numel(),
                       reinterpret_cast<Pair*>(o.data_ptr<float>()));
  if (!o.is_same(out)) out.copy_(o);
  std::vector<int64_t> valid;
  if (!src_v.fully_valid()) {
    valid = src_v.valid;
    valid.back() *= 2;
  }
  return Value::from_tensor(out, std::move(valid));
}

// Run boundaries of one merge: at most four runs (no allocation per group).
struct Runs {
  int64_t starts[5];
  size_t count = 0;
  void begin(int64_t at) {
    starts[0] = at;
    count = 0;
  }
  void end_run(int64_t at) { starts[++count] = at; }
};

// Merges the sorted runs of `pairs` (stable: ties keep the earlier position) into `out`.
void merge_runs(const Pair* pairs, const Runs& runs, Pair* out) {
  sort_kernels::merge_runs(sort_kernels::active_isa(), pairs, runs.starts, runs.count, out);
}

const Pair* pairs_of(const at::Tensor& t) { return reinterpret_cast<const Pair*>(t.const_data_ptr<float>()); }

const at::Tensor& pair_row_tensor(const OpArgs& a, const char* what, const Value& v) {
  const at::Tensor& t = a.as_tensor(v, what).tensor;
  if (t.scalar_type() != at::kFloat)
    throw KernelError(std::string("pl.mrgsort: ") + what + " must be fp32 (value, index) pairs, got " +
                      ops::dtype_str(t.scalar_type()));
  if (t.dim() != 2 || t.size(-1) % 2 != 0)
    throw KernelError(std::string("pl.mrgsort: ") + what + " must be a 2-D row of (value, index) pairs with an even "
                      "number of columns, got shape " + python_shape_repr(t.sizes()));
  return t;
}

// pl.mrgsort(src, block_len=B): merges each group of 4 sorted runs of B positions (format 1);
// pl.mrgsort(s0, s1[, s2[, s3]]): merges 2-4 sorted pair rows (format 2).
Value mrgsort(const OpArgs& a, Dest& d) {
  std::vector<const Value*> srcs;
  static const char* names[] = {"src0", "src1", "src2", "src3"};
  for (size_t k = 0; k < 4; ++k)
    if (const Value* v = a.optional(k, names[k])) srcs.push_back(v);
  if (srcs.empty()) throw KernelError("pl.mrgsort: missing argument 'src0'");
  const Value* bl = a.option("block_len");
  if (srcs.size() == 1) {
    if (!bl) throw KernelError("pl.mrgsort: one source needs block_len= (format 1); format 2 merges 2-4 sources");
    const int64_t block = a.as_int(*bl, "block_len");
    const at::Tensor& src = pair_row_tensor(a, "src", *srcs[0]);
    if (block <= 0 || block % 64 != 0)
      throw KernelError("pl.mrgsort: block_len must be a positive multiple of 64 (positions: 32 pairs per sort32 "
                        "block), got " + std::to_string(block));
    const int64_t width = src.size(1);
    at::Tensor s = src.contiguous();
    at::Tensor out = d.out(src.sizes(), at::kFloat, {src}, false, srcs[0]->fully_valid());
    at::Tensor o = out.is_contiguous() && !ops::shares_memory(out, s)
                       ? out
                       : at::empty(src.sizes(), at::TensorOptions().dtype(at::kFloat));
    const int64_t run = block / 2;  // pairs per run
    const int64_t pairs = width / 2;
    Runs runs;
    const Pair* in = pairs_of(s);
    Pair* res = reinterpret_cast<Pair*>(o.data_ptr<float>());
    for (int64_t r = 0; r < src.size(0); ++r) {
      const Pair* row = in + r * pairs;
      Pair* orow = res + r * pairs;
      for (int64_t g = 0; g < pairs; g += 4 * run) {
        const int64_t end = std::min(pairs, g + 4 * run);
        runs.begin(g);
        for (int64_t k = g; k < end; k += run) runs.end_run(std::min(end, k + run));
        merge_runs(row, runs, orow + g);
      }
    }
    if (!o.is_same(out)) out.copy_(o);
    return Value::from_tensor(out, srcs[0]->valid);
  }
  if (bl) throw KernelError("pl.mrgsort: block_len= is for one source (format 1); got " + std::to_string(srcs.size()) + " sources");
  // Format 2. exhausted=True (stop at the first exhausted list) is not modelled: the full
  // merge is computed, whose prefix is what the hardware produces before it stops.
  std::vector<at::Tensor> ts;
  int64_t rows = -1, width = 0;
  for (size_t k = 0; k < srcs.size(); ++k) {
    at::Tensor t = pair_row_tensor(a, names[k], *srcs[k]).contiguous();
    if (rows >= 0 && t.size(0) != rows)
      throw KernelError("pl.mrgsort: the sources must have the same number of rows, got " + std::to_string(rows) +
                        " and " + std::to_string(t.size(0)));
    rows = t.size(0);
    width += t.size(1);
    ts.push_back(t);
  }
  std::vector<int64_t> shape = {rows, width};
  at::Tensor out = d.out(shape, at::kFloat, {}, false);
  bool overlap = false;
  for (const auto& t : ts) overlap = overlap || ops::shares_memory(out, t);
  at::Tensor o = out.is_contiguous() && !overlap ? out : at::empty(shape, at::TensorOptions().dtype(at::kFloat));
  std::vector<Pair> row(static_cast<size_t>(width / 2));
  Runs runs;
  for (int64_t r = 0; r < rows; ++r) {
    runs.begin(0);
    for (const auto& t : ts) {
      const int64_t n = t.size(1) / 2, at = runs.starts[runs.count];
      std::copy(pairs_of(t) + r * n, pairs_of(t) + (r + 1) * n, row.begin() + at);
      runs.end_run(at + n);
    }
    merge_runs(row.data(), runs, reinterpret_cast<Pair*>(o.data_ptr<float>()) + r * (width / 2));
  }
  if (!o.is_same(out)) out.copy_(o);
  return Value::from_tensor(out);
}

struct Pattern {
  int64_t stride, offset;
};

Pattern mask_pattern(const OpArgs& a, const Value& v) {
  static const char* names[] = {"P0101", "P1010", "P0001", "P0010", "P0100", "P1000", "P1111"};
  static const Pattern pats[] = {{2, 0}, {2, 1}, {4, 0}, {4, 1}, {4, 2}, {4, 3}, {1, 0}};
  if (v.kind == Value::Kind::Int) {
    if (v.i < 1 || v.i > 7)
      throw KernelError(std::string("pl.") + a.op + ": mask_pattern code must be 1..7, got " + std::to_string(v.i));
    return pats[v.i - 1];
  }
  std::string m = a.as_enum_member(v, "MaskPattern");
  for (int k = 0; k < 7; ++k)
    if (m == names[k]) return pats[k];
  throw KernelError(std::string("pl.") + a.op + ": unknown mask pattern " + m +
                    " (P0101 P1010 P0001 P0010 P0100 P1000 P1111)");
}

// Copies every `stride`-th element (from `offset`) of each row of `src` (contiguous, `cols`
// per row) into `dst` (contiguous), as raw W-byte words, zero-extended to D when wider.
template <typename W, typename D>
void gather_columns(const void* src, void* dst, int64_t rows, int64_t cols, int64_t offset, int64_t stride) {
  const W* s = static_cast<const W*>(src);
  D* o = static_cast<D*>(dst);
  const int64_t out_cols = cols / stride;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < out_cols; ++c) o[r * out_cols + c] = static_cast<D>(s[r * cols + offset + c * stride]);
}

Value gather(const OpArgs& a, Dest& d) {
  const Value& x_v = a.tensor(0, "input");
  const at::Tensor& x = x_v.tensor;
  const Value* mp = a.option("mask_pattern");
  const Value* index = a.optional(2, "index");
  if (mp && index) throw KernelError("pl.gather: pass either mask_pattern= or index=, not both");
  if (mp) {
    const Pattern p = mask_pattern(a, *mp);
    ops::check_rank_at_least("gather", x, "input", 1);
    const int64_t cols = x.size(-1);
    if (cols % p.stride != 0)
      throw KernelError("pl.gather: the last axis (" + std::to_string(cols) + ") must be a multiple of the pattern's "
                        "period " + std::to_string(p.stride));
    std::string to_name = ops::dtype_str(x.scalar_type());
    c10::ScalarType to = x.scalar_type();
    if (const Value* od = a.option("output_dtype")) {
      to = a.as_dtype(*od, "output_dtype", &to_name);
      // uint32 is stored as int64 (and uint16 as int32): a 32-bit input can only mean uint32.
      const int64_t width = static_cast<int64_t>(c10::elementSize(x.scalar_type())) * 8;
      if (to == at::kLong && width == 32 && to_name == "int64" && !od->str) to_name = "uint32";
      if (to == at::kInt && width == 16 && to_name == "int32" && !od->str) to_name = "uint16";
    }
    // output_dtype reinterprets bits: it must have the input's width (uint16 / uint32 are
    // stored widened, so their words are zero-extended).
    const int64_t width = static_cast<int64_t>(c10::elementSize(x.scalar_type())) * 8;
    const bool widen32 = to_name == "uint32" && width == 32;
    const bool widen16 = to_name == "uint16" && width == 16;
    if (!widen32 && !widen16 && (static_cast<int64_t>(c10::elementSize(to)) * 8 != width || to == at::kBool ||
                                 x.scalar_type() == at::kBool))
      throw KernelError("pl.gather: output_dtype " + to_name + " must have the bit width of the input (" +
                        std::to_string(width) + " bits, " + ops::dtype_str(x.scalar_type()) +
                        "): it reinterprets bits, it does not convert values");
    std::vector<int64_t> valid;
    if (!x_v.fully_valid()) {
      valid = x_v.valid;
      const int64_t vc = valid.back();
      valid.back() = vc > p.offset ? (vc - p.offset + p.stride - 1) / p.stride : 0;
    }
    std::vector<int64_t> shape = x.sizes().vec();
    shape.back() = cols / p.stride;
    at::Tensor out = d.out(shape, to, {x}, false, valid.empty());
    at::Tensor xs = x.contiguous();
    at::Tensor o = out.is_contiguous() ? out : at::empty(shape, at::TensorOptions().dtype(to));
    const int64_t rows = cols ? xs.numel() / cols : 0;
    const void* sp = xs.const_data_ptr();
    void* dp = o.data_ptr();
    if (widen32) gather_columns<uint32_t, int64_t>(sp, dp, rows, cols, p.offset, p.stride);
    else if (widen16) gather_columns<uint16_t, int32_t>(sp, dp, rows, cols, p.offset, p.stride);
    else if (width == 64) gather_columns<uint64_t, uint64_t>(sp, dp, rows, cols, p.offset, p.stride);
    else if (width == 32) gather_columns<uint32_t, uint32_t>(sp, dp, rows, cols, p.offset, p.stride);
    else if (width == 16) gather_columns<uint16_t, uint16_t>(sp, dp, rows, cols, p.offset, p.stride);
    else gather_columns<uint8_t, uint8_t>(sp, dp, rows, cols, p.offset, p.stride);
    if (!o.is_same(out)) out.copy_(o);
    return Value::from_tensor(out, std::move(valid));
  }
  if (!index) throw KernelError("pl.gather: pass mask_pattern= (mask form) or dim=-1, index= (index form)");
  const Value& idx_v = a.as_tensor(*index, "index");
  const at::Tensor& idx = idx_v.tensor;
  int64_t dim = -1;
  if (const Value* dv = a.optional(1, "dim")) dim = a.as_int(*dv, "dim");
  if (x.dim() != 2 || idx.dim() != 2)
    throw KernelError("pl.gather: the index form needs 2-D input and index, got " + python_shape_repr(x.sizes()) +
                      " and " + python_shape_repr(idx.sizes()));
  if (dim != -1 && dim != 1) throw KernelError("pl.gather: only dim=-1 (the last axis) is supported, got " + std::to_string(dim));
  if (!at::isIntegralType(idx.scalar_type(), false))
    throw KernelError("pl.gather: index must be an integer tensor (int32), got " + ops::dtype_str(idx.scalar_type()));
  if (idx.size(0) != x.size(0))
    throw KernelError("pl.gather: index has " + std::to_string(idx.size(0)) + " rows but the input has " +
                      std::to_string(x.size(0)));
  at::Tensor li = idx.to(at::kLong);
  if (li.numel()) {
    const int64_t lo = li.min().item<int64_t>(), hi = li.max().item<int64_t>();
    if (lo < 0 || hi >= x.size(1))
      throw KernelError("pl.gather: index values must be in [0, " + std::to_string(x.size(1)) + "), got values from " +
                        std::to_string(lo) + " to " + std::to_string(hi));
  }
  at::Tensor out = d.out(idx.sizes(), x.scalar_type(), {x, idx}, false, idx_v.fully_valid());
  at::gather_out(out, x, 1, li);
  return Value::from_tensor(out, idx_v.valid);
}

// pl.scatter / pl.tensor.scatter, the inverse of gather. Index form (input, dim=-1, index,
// src): a copy of input with out[b, index[b, k]] = src[b, k]. Mask form (input, *,
// mask_pattern, dst): a copy of dst with input's columns written at the pattern's
// positions (dst has input's columns times the pattern's period).
Value scatter(const OpArgs& a, Dest& d) {
  const Value& x_v = a.tensor(0, "input");
  const at::Tensor& x = x_v.tensor;
  const Value* mp = a.option("mask_pattern");
  const Value* dst_kw = a.option("dst");
  const Value* index = a.optional(2, "index");
  if ((mp || dst_kw) && (index || a.optional(1, "dim") || a.optional(3, "src")))
    throw KernelError("pl.scatter: the index form (dim, index, src) and the mask form (mask_pattern=, dst=) "
                      "are mutually exclusive");
  if (mp || dst_kw) {
    if (!mp || !dst_kw) throw KernelError("pl.scatter: the mask form needs both mask_pattern= and dst=");
    const Pattern p = mask_pattern(a, *mp);
    const Value& dst_v = a.as_tensor(*dst_kw, "dst");
    const at::Tensor& dst = dst_v.tensor;
    ops::check_same_dtype("scatter", x, "input", dst, "dst");
    bool ok = x.dim() >= 1 && dst.dim() == x.dim() && dst.size(-1) == x.size(-1) * p.stride;
    for (int64_t k = 0; ok && k + 1 < x.dim(); ++k) ok = dst.size(k) == x.size(k);
    if (!ok)
      throw KernelError("pl.scatter: dst must have input's shape with the last axis times the pattern's period " +
                        std::to_string(p.stride) + " (input " + python_shape_repr(x.sizes()) + "), got " +
                        python_shape_repr(dst.sizes()));
    at::Tensor out = d.out(dst.sizes(), dst.scalar_type(), {x, dst}, false, dst_v.fully_valid());
    if (!out.is_same(dst)) copy_values(out, dst);
    copy_values(out.narrow(-1, p.offset, x.size(-1) * p.stride - p.offset).slice(-1, 0, c10::nullopt, p.stride), x);
    return Value::from_tensor(out, dst_v.valid);
  }
  if (!index) throw KernelError("pl.scatter: pass dim=-1, index=, src= (index form) or mask_pattern=, dst= (mask form)");
  const at::Tensor& idx = a.as_tensor(*index, "index").tensor;
  const Value* src_arg = a.optional(3, "src");
  if (!src_arg) throw KernelError("pl.scatter: the index form needs src");
  const at::Tensor& src = a.as_tensor(*src_arg, "src").tensor;
  int64_t dim = -1;
  if (const Value* dv = a.optional(1, "dim")) dim = a.as_int(*dv, "dim");
  if (x.dim() != 2 || idx.dim() != 2 || src.dim() != 2)
    throw KernelError("pl.scatter: the index form needs 2-D input, index and src, got " +
                      python_shape_repr(x.sizes()) + ", " + python_shape_repr(idx.sizes()) + " and " +
                      python_shape_repr(src.sizes()));
  if (dim != -1 && dim != 1)
    throw KernelError("pl.scatter: only dim=-1 (the last axis) is supported, got " + std::to_string(dim));
  ops::check_same_dtype("scatter", x, "input", src, "src");
  if (!at::isIntegralType(idx.scalar_type(), false))
    throw KernelError("pl.scatter: index must be an integer tensor (int16 / int32), got " +
                      ops::dtype_str(idx.scalar_type()));
  if (!idx.sizes().equals(src.sizes()) || idx.size(0) != x.size(0) || idx.size(1) > x.size(1))
    throw KernelError("pl.scatter: index and src must have the same shape [rows, K] with input's rows and K <= its "
                      "columns, got input " + python_shape_repr(x.sizes()) + ", index " +
                      python_shape_repr(idx.sizes()) + ", src " + python_shape_repr(src.sizes()));
  at::Tensor li = idx.to(at::kLong);
  if (li.numel()) {
    const int64_t lo = li.min().item<int64_t>(), hi = li.max().item<int64_t>();
    if (lo < 0 || hi >= x.size(1))
      throw KernelError("pl.scatter: index values must be in [0, " + std::to_string(x.size(1)) + "), got values from " +
                        std::to_string(lo) + " to " + std::to_string(hi));
  }
  at::Tensor out = d.out(x.sizes(), x.scalar_type(), {x, idx, src}, false, x_v.fully_valid());
  if (!out.is_same(x)) copy_values(out, x);
  out.scatter_(1, li, src);
  return Value::from_tensor(out, x_v.valid);
}

}  // namespace

void register_sort_ops(OpTable& t) {
  t.add(fresh_result(ops::op_def<sort32>("sort32", 2, 2)));
  t.add(fresh_result(ops::op_def<mrgsort>("mrgsort", 1, 4, {"block_len", "exhausted", "tmp"})));
  t.add(fresh_result(ops::op_def<gather>("gather", 1, 3, {"mask_pattern", "output_dtype"})));
  t.add(fresh_result(ops::op_def<scatter>("scatter", 1, 4, {"mask_pattern", "dst"})));
}

}  // namespace pypto_golden::sim
