"""The older harness's two config dicts, `compile_cfg` and `runtime_cfg` (pypto-lib's golden
before the one `config=`), as the fields of the RunConfig this harness runs with.

What each dict took there (see the harness reference, "Compile paths" and "Runtime
dispatch"): `run(program=...)` forwarded compile_cfg as the keywords of pypto.ir.compile and
`run_jit(fn=...)` made a RunConfig of it; both passed runtime_cfg to
pypto.runtime.execute_compiled after bundling its DFX flags. A key either function would not
take is the same TypeError here, naming it, before anything runs. Compile knobs that only
steer code generation for the device are accepted and have no effect on the simulator."""

from pypto.runtime import RunConfig

# pypto.ir.compile's keywords -> the RunConfig field each is (None: no simulator meaning).
_IR_COMPILE_KEYWORDS = {
    "output_dir": "save_kernels_dir",
    "strategy": "strategy",
    "dump_passes": "dump_passes",
    "backend_type": None,  # derived from the platform
    "skip_ptoas": None,
    "verification_level": None,
    "diagnostic_phase": "diagnostic_phase",
    "disabled_diagnostics": "disabled_diagnostics",
    "memory_planner": "memory_planner",
    "enable_pypto_l0c_double_buffer": None,
    "profiling": "compile_profiling",
    "platform": "platform",
    "distributed_config": "distributed_config",
    "analyze_auto_scopes_for_deps": "analyze_auto_scopes_for_deps",
    "emit_source_loc": None,
    "dump_ptoas_passes": "dump_ptoas_passes",
    "runtime": None,
}
# pypto.runtime.execute_compiled's keywords (its five DFX flags arrive as separate keys).
_DFX_FLAGS = ("enable_chip_swimlane", "enable_dump_args", "enable_pmu", "enable_dep_gen",
              "enable_scope_stats")
_EXECUTE_REQUIRED = ("platform", "device_id")
_EXECUTE_KEYWORDS = _EXECUTE_REQUIRED + _DFX_FLAGS + (
    "level", "aicpu_thread_num", "analyze_auto_scopes_for_deps")
_HARNESS_ONLY = ("log_level",)
_RUN_CONFIG_FIELDS = set(RunConfig.__dataclass_fields__)


def _check_dict(what, value):
    if value is not None and not isinstance(value, dict):
        raise TypeError(f"{what} must be a dict, got {type(value).__name__}")
    return dict(value or {})  # never mutate the caller's dict


def _runtime_fields(runtime_cfg, distributed=False):
    """RunConfig fields of an execute_compiled keyword dict (plus log_level). For an L3 run
    (distributed) the public harness filters runtime_cfg to RunConfig fields instead, and its
    devices are the distributed config's, so no device_id is needed."""
    fields = _check_dict("runtime_cfg", runtime_cfg)
    if distributed:
        return {k: v for k, v in fields.items() if k in _RUN_CONFIG_FIELDS or k in _HARNESS_ONLY}
    for key in fields:
        if key not in _EXECUTE_KEYWORDS + _HARNESS_ONLY:
            raise TypeError(f"execute_compiled() got an unexpected keyword argument {key!r}")
    missing = [k for k in _EXECUTE_REQUIRED if k not in fields]
    if missing:
        names = " and ".join(repr(k) for k in missing)
        raise TypeError(f"execute_compiled() missing {len(missing)} required keyword-only "
                        f"argument{'s' if len(missing) > 1 else ''}: {names}")
    fields.pop("level", None)  # the simulator runs what the build holds
    return fields


def _merge(compile_fields, runtime_fields):
    merged = dict(compile_fields)
    for key, value in runtime_fields.items():
        if key in merged and merged[key] != value:
            raise TypeError(f"{key!r} is given in both compile_cfg and runtime_cfg with different values "
                            f"({merged[key]!r} and {value!r})")
        merged[key] = value
    return merged


def program_config(compile_cfg, runtime_cfg):
    """The config of `run(program=..., compile_cfg=..., runtime_cfg=...)`."""
    compile_fields = {}
    for key, value in _check_dict("compile_cfg", compile_cfg).items():
        if key not in _IR_COMPILE_KEYWORDS:
            raise TypeError(f"compile() got an unexpected keyword argument {key!r}")
        field = _IR_COMPILE_KEYWORDS[key]
        if field is not None:
            compile_fields[field] = value
    return _merge(compile_fields, _runtime_fields(runtime_cfg, "distributed_config" in compile_fields))


def jit_config(compile_cfg, runtime_cfg):
    """The config of `run_jit(fn=..., compile_cfg=..., runtime_cfg=...)`: compile_cfg holds
    RunConfig fields, and the runtime platform overrides its platform."""
    compile_fields = _check_dict("compile_cfg", compile_cfg)
    for key in compile_fields:
        if key not in _RUN_CONFIG_FIELDS:
            raise TypeError(f"RunConfig.__init__() got an unexpected keyword argument {key!r}")
    runtime_fields = _runtime_fields(runtime_cfg, compile_fields.get("distributed_config") is not None)
    compile_fields["platform"] = runtime_fields["platform"]
    return _merge(compile_fields, runtime_fields)
