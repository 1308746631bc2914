// Views and writes: slice, reshape, transpose, transpose_view (zero-copy views that
// carry the valid region), concat, load (a copy into a new tile), store / assemble (write a
// value's valid region into a tensor in place, optionally as an atomic add), gather_row (a
// window of a tensor into an on-chip accumulator, in place) and move.
#include "sim/device.h"
#include "sim/kernel_error.h"
#include "sim/ops/op_result.h"
#include "sim/ops/operand_checks.h"
#include "sim/ops/valid_padding.h"
#include "tensor/python_repr.h"
#include "sim/strided_view.h"
#include "sim/task_ids.h"
#include "sim/task_windows.h"
#include "sim/tensor_copy.h"
#include "sim/write_log.h"

#include <ATen/TensorUtils.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <mutex>

namespace pypto_golden::sim {
namespace {

using ops::Dest;

int64_t norm_axis(const char* op, int64_t axis, int64_t rank, const char* name) {
  if (axis < -rank || axis >= rank)
    throw KernelError(std::string("pl.") + op + ": " + name + " " + std::to_string(axis) + " is out of range for rank " +
                      std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> fixed_rank_list(const OpArgs& a, const Value& v, const char* name, int64_t rank) {
  std::vector<int64_t> out = a.as_int_list(v, name);
  if (static_cast<int64_t>(out.size()) != rank)
    throw KernelError(std::string("pl.") + a.op + ": " + name + " " + python_list_repr(out) + " must have " +
                      std::to_string(rank) + " entries (one per axis of the tensor)");
  return out;
}

// A window of `src` at `offset` of extent `shape` copied into `out` (same shape), with the
// parts outside `src` (clamp) and outside `valid` filled with `pad`.
void copy_window(at::Tensor out, const at::Tensor& src, const std::vector<int64_t>& offset,
                 const std::vector<int64_t>& valid, const c10::Scalar& pad) {
  ops::fill_outside(out, valid, pad);
  copy_values(corner_view(out, valid), window_view(src, offset, valid));
}

// The valid region of a window read (pl.slice, pl.load), following PyPTO's rule for reads
// whose view the device clamps to the tensor: the window may run past the tensor's end,
// since what is read is only its valid region. An explicit valid_shape has to fit inside
// the tensor from the offset (unless clamp=True, which narrows it to the tensor's end); a
// window without one is cut at the end of the tensor, the rest being padding.
std::vector<int64_t> window_read_valid(const OpArgs& a, const Value& x_v, const std::vector<int64_t>& offset,
                                       const std::vector<int64_t>& shape, const Value* given) {
  const at::Tensor& t = x_v.tensor;
  bool clamp = false;
  if (const Value* c = a.option("clamp")) clamp = a.as_bool(*c, "clamp");
  for (size_t k = 0; k < shape.size(); ++k) {
    const int64_t extent = t.size(static_cast<int64_t>(k));
    if (shape[k] < 0 || offset[k] < 0 || offset[k] > extent)
      throw KernelError(std::string("pl.") + a.op + ": the window is outside the tensor: axis " + std::to_string(k) +
                        " asks for [" + std::to_string(offset[k]) + ":" + std::to_string(offset[k] + shape[k]) +
                        "] but the extent is " + std::to_string(extent) + " (shape " + python_shape_repr(t.sizes()) +
                        ")");
  }
  // The source's valid region under the window (which ends inside the tensor).
  const std::vector<int64_t> src_valid = x_v.valid_shape();
  std::vector<int64_t> valid(shape.size());
  for (size_t k = 0; k < shape.size(); ++k) valid[k] = std::clamp<int64_t>(src_valid[k] - offset[k], 0, shape[k]);
  if (!given) return valid;
  std::vector<int64_t> want = a.as_int_list(*given, "valid_shape");
  if (want.size() != shape.size())
    throw KernelError(std::string("pl.") + a.op + ": valid_shape " + python_list_repr(want) + " must have " +
                      std::to_string(shape.size()) + " entries");
  for (size_t k = 0; k < want.size(); ++k) {
    const int64_t extent = t.size(static_cast<int64_t>(k));
    if (want[k] < 0 || want[k] > shape[k])
      throw KernelError(std::string("pl.") + a.op + ": valid_shape " + python_list_repr(want) + " exceeds the shape " +
                        python_list_repr(shape));
    if (!clamp && offset[k] + want[k] > extent)
      throw KernelError(std::string("pl.") + a.op + ": the read is outside the tensor: axis " + std::to_string(k) +
                        " reads [" + std::to_string(offset[k]) + ":" + std::to_string(offset[k] + want[k]) +
                        "] (offset " + std::to_string(offset[k]) + " + valid_shape " + std::to_string(want[k]) +
                        ") but the extent is " + std::to_string(extent) + " (shape " + python_shape_repr(t.sizes()) +
                        "); pass clamp=True to narrow the read to the tensor's end");
    valid[k] = std::min(valid[k], want[k]);
  }
  return valid;
}

bool is_full(const std::vector<int64_t>& valid, at::IntArrayRef shape) {
  for (size_t k = 0; k < valid.size(); ++k)
    if (valid[k] != shape[k]) return false;
  return true;
}

// pl.slice(x, shape, offset, valid_shape=None, *, drop_dims, pad_value, clamp)
Value slice(const OpArgs& a, Dest&) {
  const Value& x_v = a.tensor(0, "input");
  const at::Tensor& x = x_v.tensor;
  std::vector<int64_t> shape = fixed_rank_list(a, a.required(1, "shape"), "shape", x.dim());
  std::vector<int64_t> offset = fixed_rank_list(a, a.required(2, "offset"), "offset", x.dim());
  std::vector<int64_t> valid = window_read_valid(a, x_v, offset, shape, a.optional(3, "valid_shape"));
  note_read(x, offset, valid);
  const Value* pad = a.option("pad_value");
  bool overhang = false;
  for (size_t k = 0; k < shape.size(); ++k) overhang = overhang || offset[k] + shape[k] > x.size(static_cast<int64_t>(k));
  at::Tensor view;
  if (overhang || (pad && !is_full(valid, shape))) {
    // A window past the source end, or padding with a defined value: a snapshot tile.
    view = ops::new_tensor(a, shape, x.scalar_type());
    copy_window(view, x, offset, valid, pad ? ops::pad_scalar(a, *pad, x.scalar_type()) : c10::Scalar(int64_t(0)));
  } else {
    view = window_view(x, offset, shape, window_ownership(a.device, x));
  }
  if (const Value* dd = a.option("drop_dims")) {
    std::vector<int64_t> drops = a.as_int_list(*dd, "drop_dims");
    for (auto& ax : drops) ax = norm_axis("slice", ax, static_cast<int64_t>(shape.size()), "drop_dims axis");
    std::sort(drops.begin(), drops.end());
    drops.erase(std::unique(drops.begin(), drops.end()), drops.end());
    for (auto it = drops.rbegin(); it != drops.rend(); ++it) {
      const size_t ax = static_cast<size_t>(*it);
      if (shape[ax] != 1 || valid[ax] != 1)
        throw KernelError("pl.slice: drop_dims axis " + std::to_string(*it) + " must be a fully valid unit axis, but the "
                          "window has extent " + std::to_string(shape[ax]) + " (valid " + std::to_string(valid[ax]) + ")");
      view = view.select(static_cast<int64_t>(ax), 0);
      valid.erase(valid.begin() + static_cast<std::ptrdiff_t>(ax));
    }
  }
  return Value::from_tensor(view, std::move(valid));
}

// The new valid box of a reshape: fully valid stays fully valid; a valid
// region that is a flat prefix of the buffer maps to the box of the new shape covering the
// same cells; anything else is rejected.
std::vector<int64_t> reshape_valid(const Value& x_v, const std::vector<int64_t>& shape) {
  if (x_v.fully_valid()) return {};
  const std::vector<int64_t> old = x_v.tensor.sizes().vec();
  const std::vector<int64_t>& v = x_v.valid;
  // The region is a flat prefix when, for some axis k, the axes before it have valid extent 1
  // and the axes after it are full.
  int64_t prefix = -1;
  for (int64_t e : v)
    if (e == 0) prefix = 0;
  for (size_t k = 0; prefix < 0 && k < v.size(); ++k) {
    bool ok = true;
    int64_t inner = 1;
    for (size_t j = 0; j < k; ++j) ok = ok && v[j] == 1;
    for (size_t j = k + 1; j < v.size(); ++j) {
      ok = ok && v[j] == old[j];
      inner *= old[j];
    }
    if (ok) prefix = v[k] * inner;
  }
  const std::string what = "pl.reshape: the valid region " + python_shape_repr(v) + " of the " +
                           python_shape_repr(old) + " input ";
  if (prefix < 0)
    throw KernelError(what + "is not a contiguous prefix of the buffer, so no box of shape " +
                      python_list_repr(shape) + " holds the same cells");
  std::vector<int64_t> nv(shape.size(), 1);
  if (prefix == 0) {
    if (!nv.empty()) nv[0] = 0;
    return nv;
  }
  int64_t inner = 1;
  for (int64_t k = static_cast<int64_t>(shape.size()) - 1; k >= 0; --k) {
    const size_t uk = static_cast<size_t>(k);
    if (prefix % inner == 0 && prefix / inner <= shape[uk]) {
      nv[uk] = prefix / inner;
      for (size_t j = uk + 1; j < shape.size(); ++j) nv[j] = shape[j];
      return nv;
    }
    inner *= shape[uk];
  }
  throw KernelError(what + "(its first " + std::to_string(prefix) + " elements) has no box of shape " +
                    python_list_repr(shape) + " that holds the same cells");
}

Value reshape(const OpArgs& a, Dest&) {
  const Value& x_v = a.tensor(0, "input");
  const at::Tensor& x = x_v.tensor;
  std::vector<int64_t> shape = a.as_int_list(a.required(1, "shape"), "shape");
  int64_t known = 1, infer = -1;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == -1 && infer < 0) infer = static_cast<int64_t>(k);
    else if (shape[k] < 0) throw KernelError("pl.reshape: bad shape " + python_list_repr(shape));
    else known *= shape[k];
  }
  if (infer >= 0 && known > 0 && x.numel() % known == 0) shape[static_cast<size_t>(infer)] = x.numel() / known;
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  if (n != x.numel())
    throw KernelError("pl.reshape: cannot reshape " + python_shape_repr(x.sizes()) + " (" + std::to_string(x.numel()) +
                      " elements) to " + python_list_repr(shape) + " (" + std::to_string(n) + " elements)");
  std::vector<int64_t> valid = reshape_valid(x_v, shape);
  at::Tensor out;
  if (at::detail::computeStride(x.sizes(), x.strides(), shape).has_value()) {
    out = x.view(shape);  // zero-copy: writes through the result land in x
  } else {
    out = ops::copy_tensor(a, x).view(shape);  // a strided window: a snapshot
  }
  return Value::from_tensor(out, std::move(valid));
}

Value transpose(const OpArgs& a, Dest&) {
  const Value& x_v = a.tensor(0, "input");
  const int64_t rank = x_v.tensor.dim();
  const int64_t a1 = norm_axis("transpose", a.as_int(a.required(1, "axis1"), "axis1"), rank, "axis1");
  const int64_t a2 = norm_axis("transpose", a.as_int(a.required(2, "axis2"), "axis2"), rank, "axis2");
  if (a1 == a2) throw KernelError("pl.transpose: axis1 and axis2 must differ, both are " + std::to_string(a1));
  std::vector<int64_t> valid = x_v.valid;
  if (!valid.empty()) std::swap(valid[static_cast<size_t>(a1)], valid[static_cast<size_t>(a2)]);
  return Value::from_tensor(transposed_view(x_v.tensor, a1, a2), std::move(valid));
}

// pl.tile.transpose_view(tile): the NZ <-> ZN reinterpretation of the same bytes, i.e. the
// tile with its last two axes swapped (a view; writes through it land in the tile).
Value transpose_view(const OpArgs& a, Dest&) {
  const Value& x_v = a.tensor(0, "tile");
  ops::check_rank_at_least("transpose_view", x_v.tensor, "tile", 2);
  std::vector<int64_t> valid = x_v.valid;
  if (!valid.empty()) std::swap(valid[valid.size() - 1], valid[valid.size() - 2]);
  return Value::from_tensor(transposed_view(x_v.tensor, -2, -1), std::move(valid));
}

Value concat(const OpArgs& a, Dest& d) {
  const Value& a_v = a.tensor(0, "src0");
  const Value& b_v = a.tensor(1, "src1");
  const at::Tensor& x = a_v.tensor;
  const at::Tensor& y = b_v.tensor;
  ops::check_same_dtype("concat", x, "src0", y, "src1");
  bool ok = x.dim() >= 1 && x.dim() == y.dim();
  for (int64_t k = 0; ok && k + 1 < x.dim(); ++k) ok = x.size(k) == y.size(k);
  if (!ok)
    throw KernelError("pl.concat: shapes " + python_shape_repr(x.sizes()) + " and " + python_shape_repr(y.sizes()) +
                      " differ outside the last axis");
  std::vector<int64_t> shape = x.sizes().vec();
  shape.back() += y.size(-1);
  std::vector<int64_t> valid;
  if (!a_v.fully_valid() || !b_v.fully_valid()) {
    std::vector<int64_t> va = a_v.valid_shape(), vb = b_v.valid_shape();
    valid = va;
    for (size_t k = 0; k + 1 < va.size(); ++k) valid[k] = std::min(va[k], vb[k]);
    valid.back() = va.back() == x.size(-1) ? va.back() + vb.back() : va.back();
  }
  at::Tensor out = d.out(shape, x.scalar_type(), {x, y}, false, valid.empty() || is_full(valid, shape));
  at::cat_out(out, {x, y}, -1);
  return Value::from_tensor(out, std::move(valid));
}

// pl.load(tensor, offsets, shapes, valid_shape=None, *, target_memory, clamp): a copy of the
// window in a new tile (or a view, where no one can tell); the padding outside the valid
// region is zero.
Value load(const OpArgs& a, Dest& d) {
  const Value& x_v = a.tensor(0, "tensor");
  const at::Tensor& x = x_v.tensor;
  std::vector<int64_t> offset = fixed_rank_list(a, a.required(1, "offsets"), "offsets", x.dim());
  std::vector<int64_t> shape = fixed_rank_list(a, a.required(2, "shapes"), "shapes", x.dim());
  std::vector<int64_t> valid = window_read_valid(a, x_v, offset, shape, a.optional(3, "valid_shape"));
  const bool full = is_full(valid, shape);
  note_read(x, offset, valid);
  // Fully valid, the copy would hold exactly the window's bytes; so does a view, as long as
  // those bytes do not change: a transient load's, read once at once, or an In argument's
  // that the program never writes (through this tile either: writing it would write x).
  if (full && (a.transient || read_only(a.device, x)))
    return Value::from_tensor(window_view(x, offset, shape, window_ownership(a.device, x)));
  at::Tensor out = d.out(shape, x.scalar_type(), {x}, false, full);
  copy_window(out, x, offset, valid, c10::Scalar(int64_t(0)));
  return Value::from_tensor(out, std::move(valid));
}

std::mutex& atomic_lock(const void* storage) {
  static std::mutex locks[64];
  return locks[(reinterpret_cast<uintptr_t>(storage) >> 6) % 64];
}

bool atomic_add(const OpArgs& a) {
  const Value* v = a.option("atomic");
  if (!v) return false;
  std::string m = a.as_enum_member(*v, "AtomicType");
  if (m == "Add") return true;
  if (m == "None_" || m == "None") return false;
  throw KernelError(std::string("pl.") + a.op + ": atomic must be pl.AtomicType.None_ or pl.AtomicType.Add, got " + m);
}

// Writes `src`'s valid region (cut to `limit` when given) into `target` at `offset`.
// `src` may have fewer axes than `target`: it then fills the trailing axes (leading unit axes).
// `src` may also have more axes than `target` when the extra leading ones are unit axes (a
// batched matmul's [1, M, N] result assembled into an [M', N'] tensor): they are dropped.
// Returns the extents written, per axis of `target`.
std::vector<int64_t> write_region(const char* op, const Value& given_src, const at::Tensor& target,
                                  const std::vector<int64_t>& offset, const std::vector<int64_t>* limit, bool atomic,
                                  Device* device) {
  const int64_t rank = target.dim();
  Value src_v = given_src;
  if (given_src.tensor.dim() > rank) {
    const int64_t extra = given_src.tensor.dim() - rank;
    for (int64_t k = 0; k < extra; ++k)
      if (given_src.tensor.size(k) != 1)
        throw KernelError(std::string("pl.") + op + ": the source " + python_shape_repr(given_src.tensor.sizes()) +
                          " has more axes than the target " + python_shape_repr(target.sizes()) +
                          ", and its leading axes are not all of extent 1, so it does not fit the target's " +
                          std::to_string(rank) + " axes");
    std::vector<int64_t> valid;
    if (!given_src.fully_valid()) {
      valid.assign(given_src.valid.begin() + extra, given_src.valid.end());
      for (int64_t k = 0; k < extra; ++k)  // an empty leading axis leaves nothing to write
        if (given_src.valid[static_cast<size_t>(k)] == 0 && !valid.empty()) valid[0] = 0;
    }
    // Unit leading axes dropped: a view of the same elements (made directly, not by ATen's reshape).
    const at::Tensor& t = given_src.tensor;
    src_v = Value::from_tensor(strided_view(t, t.sizes().slice(static_cast<size_t>(extra)),
                                            t.strides().slice(static_cast<size_t>(extra)), t.storage_offset()),
                               std::move(valid));
  }
  const at::Tensor& src = src_v.tensor;
  if (src.scalar_type() != target.scalar_type())
    throw KernelError(std::string("pl.") + op + ": the source is " + ops::dtype_str(src.scalar_type()) +
                      " but the target is " + ops::dtype_str(target.scalar_type()) + "; convert it with pl.cast first");
  std::vector<int64_t> region = src_v.valid_shape();
  if (limit) {
    if (limit->size() != region.size())
      throw KernelError(std::string("pl.") + op + ": shapes " + python_list_repr(*limit) + " must have " +
                        std::to_string(region.size()) + " entries (the source's rank)");
    for (size_t k = 0; k < region.size(); ++k) region[k] = std::min(region[k], (*limit)[k]);
  }
  const int64_t lead = rank - src.dim();
  std::vector<int64_t> extents(static_cast<size_t>(rank));
  for (int64_t k = 0; k < rank; ++k) {
    const int64_t extent = k < lead ? 1 : region[static_cast<size_t>(k - lead)];
    const size_t uk = static_cast<size_t>(k);
    if (offset[uk] < 0 || offset[uk] + extent > target.size(k))
      throw KernelError(std::string("pl.") + op + ": the write is outside the target: axis " + std::to_string(k) +
                        " gets [" + std::to_string(offset[uk]) + ":" + std::to_string(offset[uk] + extent) +
                        "] but the extent is " + std::to_string(target.size(k)) + " (target shape " +
                        python_shape_repr(target.sizes()) + ", source shape " + python_shape_repr(src.sizes()) +
                        (src_v.fully_valid() ? "" : ", valid " + python_shape_repr(src_v.valid)) + ")" +
                        // PyPTO's tile.store puts a lower-rank tile on the target's trailing axes.
                        (lead ? "; a source of " + std::to_string(src.dim()) + " axes fills the target's last " +
                                    std::to_string(src.dim()) + ", as PyPTO's tile.store does"
                              : ""));
    extents[uk] = extent;
  }
  note_write(target, offset, extents);
  const at::Tensor window = window_view(target, offset, extents, window_ownership(device, target));
  at::Tensor from = corner_view(src, region);
  const at::Tensor dst = lead ? window.reshape(from.sizes()) : window;  // without the leading unit axes (a view)
  if (atomic) {
    std::lock_guard<std::mutex> lock(atomic_lock(target.storage().data()));
    dst.add_(from);
  } else {
    copy_values(dst, from);
  }
  if (device != nullptr)
    if (WriteLog* log = device->write_log()) log->note(window, {});
  return extents;
}

// pl.store(tile, offsets, output_tensor, shapes=None, *, atomic): returns output_tensor.
Value store(const OpArgs& a) {
  const Value& tile = a.tensor(0, "tile");
  const Value& out = a.tensor(2, "output_tensor");
  std::vector<int64_t> offset =
      fixed_rank_list(a, a.required(1, "offsets"), "offsets", out.tensor.dim());
  std::vector<int64_t> shapes;
  const Value* s = a.optional(3, "shapes");
  if (s) shapes = a.as_int_list(*s, "shapes");
  write_region("store", tile, out.tensor, offset, s ? &shapes : nullptr, atomic_add(a), a.device);
  return out;
}

// pl.assemble(target, source, offset, *, atomic): returns target.
Value assemble(const OpArgs& a) {
  const Value& target = a.tensor(0, "target");
  const Value& source = a.tensor(1, "source");
  std::vector<int64_t> offset =
      fixed_rank_list(a, a.required(2, "offset"), "offset", target.tensor.dim());
  const std::vector<int64_t> extents =
      write_region("assemble", source, target.tensor, offset, nullptr, atomic_add(a), a.device);
  // In the orchestration PyPTO makes the source a view of this window of the target: the
  // task that made the source wrote the target's window.
  if (TaskRecorder* r = graph_recorder(a.device); r && !in_task())
    r->note_alias(source.tensor, target.tensor, offset, extents);
  return target;
}

// pl.gather_row(acc, src, dst_offset, src_offset, shapes, transpose=False, *, valid_shape):
// copies the window of `src` at src_offset (its valid_shape part, else all of shapes) into
// `acc` at dst_offset, in place, and returns acc. transpose=True places the window's [r, c]
// as acc's [c, r] at dst_offset.
Value gather_row(const OpArgs& a) {
  const Value& acc_v = a.tensor(0, "acc");
  const Value& src_v = a.tensor(1, "src");
  const at::Tensor& acc = acc_v.tensor;
  const at::Tensor& src = src_v.tensor;
  if (acc.dim() != 2 || src.dim() != 2)
    throw KernelError("pl.gather_row: acc and src must be 2-D, got " + python_shape_repr(acc.sizes()) + " and " +
                      python_shape_repr(src.sizes()));
  if (acc.scalar_type() != src.scalar_type())
    throw KernelError("pl.gather_row: acc and src must share a dtype, got " + ops::dtype_str(acc.scalar_type()) +
                      " and " + ops::dtype_str(src.scalar_type()));
  std::vector<int64_t> dst_off = fixed_rank_list(a, a.required(2, "dst_offset"), "dst_offset", 2);
  std::vector<int64_t> src_off = fixed_rank_list(a, a.required(3, "src_offset"), "src_offset", 2);
  std::vector<int64_t> shapes = fixed_rank_list(a, a.required(4, "shapes"), "shapes", 2);
  bool transpose = false;
  if (const Value* t = a.optional(5, "transpose")) transpose = a.as_bool(*t, "transpose");
  std::vector<int64_t> extent = shapes;
  if (const Value* v = a.option("valid_shape")) {
    extent = fixed_rank_list(a, *v, "valid_shape", 2);
    for (size_t k = 0; k < 2; ++k)
      if (extent[k] < 0 || extent[k] > shapes[k])
        throw KernelError("pl.gather_row: valid_shape " + python_list_repr(extent) + " exceeds the window shapes " +
                          python_list_repr(shapes));
  }
  const std::vector<int64_t> placed = transpose ? std::vector<int64_t>{extent[1], extent[0]} : extent;
  for (size_t k = 0; k < 2; ++k) {
    const int64_t sk = src.size(static_cast<int64_t>(k)), ak = acc.size(static_cast<int64_t>(k));
    if (src_off[k] < 0 || src_off[k] + extent[k] > sk)
      throw KernelError("pl.gather_row: the read is outside src: axis " + std::to_string(k) + " reads [" +
                        std::to_string(src_off[k]) + ":" + std::to_string(src_off[k] + extent[k]) +
                        "] but the extent is " + std::to_string(sk) + " (src shape " + python_shape_repr(src.sizes()) +
                        ")");
    if (dst_off[k] < 0 || dst_off[k] + placed[k] > ak)
      throw KernelError("pl.gather_row: the write is outside acc: axis " + std::to_string(k) + " gets [" +
                        std::to_string(dst_off[k]) + ":" + std::to_string(dst_off[k] + placed[k]) +
                        "] but the extent is " + std::to_string(ak) + " (acc shape " + python_shape_repr(acc.sizes()) +
                        ")");
  }
  note_read(src, src_off, extent);
  note_write(acc, dst_off, placed);
  at::Tensor from = window_view(src, src_off, extent);
  if (transpose) from = from.t();
  copy_values(window_view(acc, dst_off, placed), from);
  return acc_v;
}

// pl.move(tile, target_memory): memory spaces have no functional effect.
Value move(const OpArgs& a) {
  return a.tensor(0, "tile");
}

}  // namespace

void register_view_ops(OpTable& t) {
  t.add(windowed(ops::op_def<slice>("slice", 3, 4, {"drop_dims", "pad_value", "clamp"}), 1u << 0));
  t.add(ops::op_def<reshape>("reshape", 2, 2));
  t.add(ops::op_def<transpose>("transpose", 3, 3));
  t.add(ops::op_def<transpose_view>("transpose_view", 1, 1));
  t.add(fresh_result(ops::op_def<concat>("concat", 2, 2)));
  t.add(windowed(ops::op_def<load>("load", 3, 4, {"target_memory", "clamp"}), 1u << 0));
  // Each of these returns the tensor it writes (or moves) itself: `y = pl.store(acc, o, y)`
  // leaves y a view of y's parameter only, not of the tile it stored (a load of an input).
  t.add(fresh_result(OpDef{"store", 3, 4, {"atomic"}, &ops::guarded<store>, nullptr, 2, 1u << 2}, 1u << 2));
  t.add(fresh_result(OpDef{"assemble", 3, 3, {"atomic"}, &ops::guarded<assemble>, nullptr, 0, 1u << 0}, 1u << 0));
  t.add(fresh_result(
      OpDef{"gather_row", 5, 6, {"valid_shape"}, &ops::guarded<gather_row>, nullptr, 0, 1u << 0 | 1u << 1}, 1u << 0));
  t.add(fresh_result(OpDef{"move", 1, 2, {"blayout", "slayout"}, &ops::guarded<move>, nullptr}, 1u << 0));
}

}  // namespace pypto_golden::sim
