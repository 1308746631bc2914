"""RunConfig / DistributedConfig: the compile and run knobs of a kernel, with pypto's field
names and defaults (the `config=` of golden.run, see README "golden.run")."""

import enum
from dataclasses import dataclass, field
from typing import Any, Optional

PLATFORMS = ("a2a3sim", "a2a3", "a5sim", "a5")


class OptimizationStrategy(enum.Enum):
    Default = "Default"


def backend_for(platform):
    return "Ascend950" if platform.startswith("a5") else "Ascend910B"


def _check_platform(platform):
    if platform not in PLATFORMS:
        raise ValueError("Invalid platform %r. Expected 'a2a3sim', 'a2a3', 'a5sim', or 'a5'."
                         % (platform,))


@dataclass
class DistributedConfig:
    device_ids: list = field(default_factory=lambda: [0])
    num_sub_workers: int = 0
    runtime: str = "tensormap_and_ringbuffer"
    aicpu_thread_num: int = 0

    def __post_init__(self):
        ids = list(self.device_ids) if isinstance(self.device_ids, (list, tuple)) else None
        if not ids or any(isinstance(i, bool) or not isinstance(i, int) or i < 0 for i in ids):
            raise ValueError("DistributedConfig.device_ids must be a non-empty list of "
                             "non-negative ints, got %r" % (self.device_ids,))
        if len(set(ids)) != len(ids):
            raise ValueError("DistributedConfig.device_ids must be distinct, got %r" % (ids,))
        self.device_ids = ids
        if not isinstance(self.num_sub_workers, int) or self.num_sub_workers < 0:
            raise ValueError("DistributedConfig.num_sub_workers must be >= 0, got %r"
                             % (self.num_sub_workers,))
        if self.aicpu_thread_num != 0 and not (
                isinstance(self.aicpu_thread_num, int) and self.aicpu_thread_num >= 2):
            raise ValueError("DistributedConfig.aicpu_thread_num must be 0 (arch default) or "
                             ">= 2, got %r" % (self.aicpu_thread_num,))


_DFX_FIELDS = ("enable_chip_swimlane", "enable_dump_args", "enable_pmu", "enable_dep_gen",
               "enable_scope_stats")


@dataclass
class RunConfig:
    platform: str = "a2a3sim"
    device_id: int = 0
    rtol: float = 1e-5
    atol: float = 1e-5
    strategy: Any = OptimizationStrategy.Default
    backend_type: str = "Ascend910B"  # always re-derived from platform
    dump_passes: Any = False
    save_kernels: bool = False
    save_kernels_dir: Optional[str] = None
    codegen_only: bool = False
    enable_chip_swimlane: int = 0
    enable_dump_args: int = 0
    enable_pmu: int = 0
    enable_dep_gen: bool = False
    enable_scope_stats: bool = False
    compile_profiling: bool = False
    diagnostic_phase: Any = None
    disabled_diagnostics: Any = None
    golden_data_dir: Optional[str] = None
    aicpu_thread_num: Optional[int] = None
    ring_task_window: Any = None
    ring_heap: Any = None
    ring_dep_pool: Any = None
    distributed_config: Optional[DistributedConfig] = None
    analyze_auto_scopes_for_deps: bool = False
    memory_planner: Any = None
    dump_ptoas_passes: bool = False

    def __post_init__(self):
        _check_platform(self.platform)
        self.backend_type = backend_for(self.platform)
        lvl = self.enable_chip_swimlane
        if isinstance(lvl, bool):
            lvl = 4 if lvl else 0
        elif not isinstance(lvl, int):
            raise TypeError("enable_chip_swimlane must be a bool or an int in 0..4, got %s"
                            % type(lvl).__name__)
        if not 0 <= lvl <= 4:
            raise ValueError("enable_chip_swimlane must be in 0..4, got %d" % lvl)
        self.enable_chip_swimlane = lvl

    def compile_kwargs(self):
        """What the JIT forwards to the compiler (platform travels separately)."""
        kw = {
            "strategy": self.strategy,
            "dump_passes": self.dump_passes,
            "dump_ptoas_passes": self.dump_ptoas_passes,
            "profiling": self.compile_profiling,
            "diagnostic_phase": self.diagnostic_phase,
            "disabled_diagnostics": self.disabled_diagnostics,
            "analyze_auto_scopes_for_deps": self.analyze_auto_scopes_for_deps,
        }
        if self.save_kernels_dir is not None:
            kw["output_dir"] = self.save_kernels_dir
        if self.distributed_config is not None:
            kw["distributed_config"] = self.distributed_config
        if self.memory_planner is not None:
            kw["memory_planner"] = self.memory_planner
        return kw

    def dfx_options(self):
        return {name: getattr(self, name) for name in _DFX_FIELDS}

    def run_options(self):
        """What dispatch needs: worker selection, AICPU threads, DFX flags, ring sizes."""
        opts = {"platform": self.platform, "device_id": self.device_id,
                "aicpu_thread_num": self.aicpu_thread_num}
        opts.update(self.dfx_options())
        opts.update(ring_task_window=self.ring_task_window, ring_heap=self.ring_heap,
                    ring_dep_pool=self.ring_dep_pool)
        return opts
