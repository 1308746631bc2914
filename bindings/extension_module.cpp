#include "define_module.h"

PYBIND11_MODULE(_pypto_golden, m) { pypto_golden::define_module(m); }
