"""RunConfig / DistributedConfig: the compile and run knobs of a kernel, with pypto's field
names and defaults (the `config=` of golden.run, see README "golden.run")."""

import enum
import functools
import warnings
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


# PyPTO's runtime: an explicit AICPU thread count is 2 up to the platform's pool.
_MAX_AICPU_THREADS = {"Ascend910B": 4, "Ascend950": 5}

_RING_DEPTH = 4  # scope-depth rings the runtime sizes independently

_SWIMLANE_ALIAS_DEPRECATION = (
    "RunConfig.enable_l2_swimlane is deprecated; use enable_chip_swimlane instead. "
    "Same values and semantics \u2014 Simpler renamed the L2 layer to 'chip', and the "
    "runtime artifact is chip_swimlane_records.json. The alias will be removed in "
    "a future release."
)


def _swimlane_level(value, source):
    """A chip-swimlane request as a level 0..4 (True is 4, the full level), with PyPTO's messages."""
    if isinstance(value, bool):
        return 4 if value else 0
    if not isinstance(value, int):
        raise TypeError("%s must be an int collection level (0-4) or a bool, got %s"
                        % (source, type(value).__name__))
    if not 0 <= value <= 4:
        raise ValueError("%s must be a collection level in [0, 4] (0=off, 1=AICore timing, "
                         "2=+dispatch/finish, 3=+sched phases, 4=+orch phases), got %d" % (source, value))
    return value


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _is_pow2(v):
    return v > 0 and (v & (v - 1)) == 0


_RING_RULES = (
    ("ring_task_window", "be a power of 2 >= 4", lambda v: _is_int(v) and _is_pow2(v) and v >= 4),
    ("ring_heap", "be a power of 2 >= 1024 (bytes per ring)", lambda v: _is_int(v) and _is_pow2(v) and v >= 1024),
    ("ring_dep_pool", "be in [4, INT32_MAX]", lambda v: _is_int(v) and 4 <= v <= 2**31 - 1),
)


def _check_ring_overrides(config):
    """Ring sizes: a scalar for every ring, or one entry per ring (0 keeps that ring's
    default); a tuple becomes a list. PyPTO's rules and messages."""
    for name, phrase, ok in _RING_RULES:
        value = getattr(config, name)
        if value is None:
            continue
        if isinstance(value, (list, tuple)):
            value = list(value)
            if len(value) != _RING_DEPTH:
                raise ValueError("%s must have exactly %d entries (one per scope-depth ring), got %d"
                                 % (name, _RING_DEPTH, len(value)))
            for v in value:
                if not _is_int(v) or (v != 0 and not ok(v)):
                    raise ValueError("%s entries must %s (or 0 to keep default), got %r" % (name, phrase, v))
            setattr(config, name, value)
        elif not ok(value):
            raise ValueError("%s must %s, got %r" % (name, phrase, value))


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
        self.enable_chip_swimlane = _swimlane_level(self.enable_chip_swimlane, "enable_chip_swimlane")
        _check_ring_overrides(self)
        # What PyPTO's runtime refuses at dispatch, refused here when the config is made:
        # a script that passes on the simulator must not fail on the real stack for a value.
        for name in ("enable_dump_args", "enable_pmu"):
            value = getattr(self, name)
            if not isinstance(value, int):
                raise TypeError("%s must be an int (or a bool), got %s" % (name, type(value).__name__))
        self.enable_dump_args = min(max(int(self.enable_dump_args), 0), 3)  # as the runtime's CallConfig clamps it
        if not _is_int(self.device_id) or self.device_id < 0:
            raise ValueError("device_id must be a non-negative int, got %r" % (self.device_id,))
        threads, most = self.aicpu_thread_num, _MAX_AICPU_THREADS[self.backend_type]
        if threads is not None and (not _is_int(threads) or not (threads == 0 or 2 <= threads <= most)):
            raise ValueError("aicpu_thread_num must be None, 0 (auto) or in range [2, %d] on %s, got %r"
                             % (most, self.platform, threads))

    @property
    def enable_l2_swimlane(self):
        """Deprecated alias of enable_chip_swimlane (reading it is silent, as in PyPTO)."""
        return self.enable_chip_swimlane

    @enable_l2_swimlane.setter
    def enable_l2_swimlane(self, value):
        warnings.warn(_SWIMLANE_ALIAS_DEPRECATION, DeprecationWarning, stacklevel=2)
        self.enable_chip_swimlane = _swimlane_level(value, "enable_l2_swimlane")

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


_RUN_CONFIG_INIT = RunConfig.__init__


@functools.wraps(_RUN_CONFIG_INIT)
def _run_config_init(self, *args, **kwargs):
    """RunConfig.__init__ that also takes the deprecated enable_l2_swimlane keyword (not a
    field, so dataclasses.replace and repr stay clean)."""
    alias = kwargs.pop("enable_l2_swimlane", None)
    if alias is not None:
        warnings.warn(_SWIMLANE_ALIAS_DEPRECATION, DeprecationWarning, stacklevel=2)
        if "enable_chip_swimlane" in kwargs:
            raise ValueError("RunConfig received both enable_chip_swimlane and the deprecated "
                             "enable_l2_swimlane; pass only enable_chip_swimlane.")
        kwargs["enable_chip_swimlane"] = alias
    _RUN_CONFIG_INIT(self, *args, **kwargs)


RunConfig.__init__ = _run_config_init
