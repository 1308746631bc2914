// The Python module `_pypto_golden`: the native core as the `golden` package sees it. The
// same definition is built into the pypto-golden executable (embedded module) and into
// the extension module that `python3 kernel.py` imports.
#pragma once

#include <pybind11/pybind11.h>

namespace pypto_golden {

struct BenchStats;

void define_module(pybind11::module_& m);

// Validation gates (validation_bindings.cpp).
void define_validation(pybind11::module_& m);

// Benchmark results (bench_bindings.cpp): `bench_stats_fields`, and a BenchStats as run()
// returns it.
void define_bench(pybind11::module_& m);
pybind11::dict bench_stats_dict(const BenchStats& s);

}  // namespace pypto_golden
