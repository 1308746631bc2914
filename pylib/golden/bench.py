"""BenchStats: the benchmark-mode result in RunResult.bench (PYPTO_BENCH=1)."""

from dataclasses import dataclass, field
from typing import List


@dataclass
class BenchStats:
    """Per-round samples (microseconds) of the timed dispatch loop and their statistics.

    On the simulator the metric is host_us: the whole dispatch measured on the host (the
    simulator has no device clock, so there is no effective_us)."""

    metric: str
    rounds: int
    warmup: int
    samples: List[float] = field(default_factory=list)
    min: float = 0.0
    median: float = 0.0
    mean: float = 0.0
    max: float = 0.0
    stdev: float = 0.0

    def __str__(self):
        return (f"{self.metric} ({len(self.samples)} rounds) min={self.min:.1f} median={self.median:.1f} "
                f"mean={self.mean:.1f} max={self.max:.1f} stdev={self.stdev:.1f}")
