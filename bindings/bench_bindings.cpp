// Benchmark results on _pypto_golden, made from the one field list of bench/bench_stats.h:
// run() returns a BenchStats as a dict with exactly those keys, and `bench_stats_fields`
// lists them (name, default, doc) for golden.BenchStats (pylib/golden/bench.py).
#include "define_module.h"

#include "bench/bench_stats.h"

#include <pybind11/stl.h>

namespace py = pybind11;

namespace pypto_golden {

py::dict bench_stats_dict(const BenchStats& s) {
  py::dict d;
#define PYPTO_BENCH_STATS_ITEM(name, type, init, doc) d[#name] = s.name;
  PYPTO_BENCH_STATS_FIELDS(PYPTO_BENCH_STATS_ITEM)
#undef PYPTO_BENCH_STATS_ITEM
  return d;
}

void define_bench(py::module_& m) {
  const BenchStats defaults;
  py::list fields;
#define PYPTO_BENCH_STATS_FIELD(name, type, init, doc) fields.append(py::make_tuple(#name, defaults.name, doc));
  PYPTO_BENCH_STATS_FIELDS(PYPTO_BENCH_STATS_FIELD)
#undef PYPTO_BENCH_STATS_FIELD
  m.attr("bench_stats_fields") = py::tuple(fields);
}

}  // namespace pypto_golden
