// Valid regions (host/sim/IR.md): set_validshape changes the metadata only; fillpad
// returns a fully valid copy whose padding holds zero / the dtype's max / min.
#include "sim/kernel_error.h"
#include "sim/ops/op_result.h"
#include "sim/ops/operand_checks.h"
#include "sim/ops/valid_padding.h"
#include "tensor/python_repr.h"
#include "sim/strided_view.h"
#include "sim/tensor_copy.h"

namespace pypto_golden::sim {
namespace {

using ops::Dest;

// pl.set_validshape(x, valid_rows, valid_cols): 2-D only; the same data, new valid region.
Value set_validshape(const OpArgs& a, Dest&) {
  const Value& x_v = a.tensor(0, "input");
  const at::Tensor& x = x_v.tensor;
  if (x.dim() != 2)
    throw KernelError("pl.set_validshape: the input must be 2-D, got shape " + python_shape_repr(x.sizes()));
  const int64_t rows = a.as_int(a.required(1, "valid_rows"), "valid_rows");
  const int64_t cols = a.as_int(a.required(2, "valid_cols"), "valid_cols");
  if (rows < 0 || rows > x.size(0) || cols < 0 || cols > x.size(1))
    throw KernelError("pl.set_validshape: valid region [" + std::to_string(rows) + ", " + std::to_string(cols) +
                      "] does not fit the shape " + python_shape_repr(x.sizes()));
  return Value::from_tensor(x, {rows, cols});
}

// pl.fillpad(x, pad_value=PadValue.zero)
Value fillpad(const OpArgs& a, Dest& d) {
  const Value& x_v = a.tensor(0, "input");
  const at::Tensor& x = x_v.tensor;
  c10::Scalar pad = at::isFloatingType(x.scalar_type()) ? c10::Scalar(0.0) : c10::Scalar(int64_t(0));
  if (const Value* p = a.optional(1, "pad_value")) pad = ops::pad_scalar(a, *p, x.scalar_type());
  at::Tensor out = d.out(x.sizes(), x.scalar_type(), {x}, true);
  if (x_v.fully_valid()) {
    copy_values(out, x);
    return Value::from_tensor(out);
  }
  at::Tensor region = x_v.valid_view();
  copy_values(corner_view(out, x_v.valid), region);
  ops::fill_outside(out, x_v.valid, pad);
  return Value::from_tensor(out);
}

}  // namespace

void register_valid_region_ops(OpTable& t) {
  t.add(ops::op_def<set_validshape>("set_validshape", 3, 3));
  t.add(ops::op_def<fillpad>("fillpad", 1, 2));
}

}  // namespace pypto_golden::sim
