#include "define_module.h"

#include <pybind11/embed.h>

PYBIND11_EMBEDDED_MODULE(_pypto_golden, m) { pypto_golden::define_module(m); }
