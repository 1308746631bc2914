// The Python module `_pypto_golden`: the native core as the `golden` package sees it. The
// same definition is built into the pypto-golden executable (embedded module) and into
// the extension module that `python3 kernel.py` imports.
#pragma once

#include <pybind11/pybind11.h>

namespace pypto_golden {

void define_module(pybind11::module_& m);

// Validation gates (validation_bindings.cpp).
void define_validation(pybind11::module_& m);

}  // namespace pypto_golden
