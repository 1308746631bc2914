// golden.validation's native gates (ratio_allclose, topk_pair_compare, ...), exposed on
// _pypto_golden. Kept apart from define_module.cpp so the gates grow in one file.
#include "define_module.h"

namespace pypto_golden {

void define_validation(pybind11::module_& m) { (void)m; }

}  // namespace pypto_golden
