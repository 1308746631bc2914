"""BenchStats: the benchmark-mode result in RunResult.bench (PYPTO_BENCH=1)."""

from dataclasses import field, make_dataclass

from golden.native import native


def _field(name, default):
    """A dataclass field with the native default (a fresh list for the samples)."""
    if isinstance(default, list):
        return (name, list, field(default_factory=list))
    return (name, type(default), field(default=default))


def _str(self):
    return (f"{self.metric} ({len(self.samples)} rounds) min={self.min:.1f} median={self.median:.1f} "
            f"mean={self.mean:.1f} max={self.max:.1f} stdev={self.stdev:.1f}")


# The fields come from the native core's one list (bench/bench_stats.h), in its order, so
# the dict run() returns always fits.
BenchStats = make_dataclass(
    "BenchStats",
    [_field(name, default) for name, default, _ in native.bench_stats_fields],
    namespace={"__str__": _str, "__module__": __name__},
)
BenchStats.__doc__ = (
    "Per-round samples (microseconds) of the timed dispatch loop and their statistics.\n\n"
    "On the simulator the metric is host_us: the whole dispatch measured on the host (the\n"
    "simulator has no device clock, so there is no effective_us).\n\n"
    + "\n".join(f"{name}: {doc}" for name, _, doc in native.bench_stats_fields)
)
