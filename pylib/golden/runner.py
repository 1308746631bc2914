"""golden.run: compile, generate inputs, compute the golden, dispatch, validate.

The stages run in the native core; this module only normalises the arguments.
"""

import functools
import os
import sys
import time
from pathlib import Path

from golden import legacy_config
from golden.bench import BenchStats
from golden.errors import as_spec_error
from golden.native import native
from golden.result import RunResult
from pypto.compiler.errors import KernelArgumentError, KernelArgumentMismatchError

LOG_LEVELS = {"debug", "info", "warn", "error", "null", "timing"} | {f"v{k}" for k in range(10)}


def _run_config(config):
    """(RunConfig, log_level) from a RunConfig, a dict of its fields plus log_level, or None."""
    from pypto.runtime import RunConfig

    if config is None:
        return RunConfig(), None
    if isinstance(config, RunConfig):
        return config, None
    if not isinstance(config, dict):
        raise TypeError(f"config must be a dict of RunConfig fields or a RunConfig, got {type(config).__name__}")
    fields = dict(config)  # never mutate the caller's dict
    log_level = fields.pop("log_level", None)
    if log_level is not None and str(log_level) not in LOG_LEVELS:
        raise ValueError(f"log_level must be one of {sorted(LOG_LEVELS)}, got {log_level!r}")
    return RunConfig(**fields), log_level


def _reported(body):
    """golden.run around its body: the run's reports (--junit) are written when it ends, with
    its result or with the exception it raises (Ctrl-C included)."""
    @functools.wraps(body)
    def run(*args, **kwargs):
        started = time.perf_counter()
        native.reset_run_record()
        try:
            result = body(*args, **kwargs)
        except BaseException as e:
            _report(args, kwargs, False, str(e), type(e).__name__, time.perf_counter() - started)
            raise
        _report(args, kwargs, result.passed, result.error or "", "", result.execution_time)
        return result
    return run


def _report(args, kwargs, passed, error, error_type, seconds):
    fn = args[0] if args else kwargs.get("fn", kwargs.get("program"))
    script = os.path.basename(getattr(sys.modules.get("__main__"), "__file__", None) or sys.argv[0] or "<script>")
    native.report_run(script, getattr(fn, "__name__", "") or "", bool(passed), error, error_type, seconds)


@_reported
def run(
    fn=None,
    specs=None,
    golden_fn=None,
    config=None,
    rtol=1e-5,
    atol=1e-5,
    compare_fn=None,
    compile_only=False,
    runtime_dir=None,
    save_data=False,
    golden_data=None,
    *,
    program=None,
    compile_cfg=None,
    runtime_cfg=None,
):
    """Runs `fn` (a @pl.jit kernel or @pl.program) against `golden_fn` (or the snapshot in
    `golden_data`) and returns a RunResult. The older form `run(program=..., compile_cfg=...,
    runtime_cfg=...)` takes pypto.ir.compile's keywords and execute_compiled's instead of
    config= (golden/legacy_config.py)."""
    started = time.perf_counter()
    if program is not None:
        if fn is not None:
            raise TypeError("pass the kernel as fn= or program=, not both")
        fn = program
    if compile_cfg is not None or runtime_cfg is not None:
        if config is not None:
            raise TypeError("pass config= or the older compile_cfg= / runtime_cfg=, not both")
        config = legacy_config.program_config(compile_cfg, runtime_cfg)
    # pypto-golden --save-data / --golden-data / --runtime-dir / --compile-only win over the
    # script's keywords: they are how a user replays a run without editing the script.
    overrides = native.host_overrides()
    save_data = overrides.get("save_data", save_data)
    compile_only = overrides.get("compile_only", compile_only)
    golden_data = overrides.get("golden_data", golden_data)
    runtime_dir = overrides.get("runtime_dir", runtime_dir)
    if fn is None and runtime_dir is None:
        raise TypeError("run() needs the kernel: run(fn=<@pl.jit function>, specs=[...])")
    # Config first, like the public harness: a bad key or log_level raises before anything else.
    # log_level is validated and accepted for portability; the simulator has no runtime log.
    run_config, _log_level = _run_config(config)
    if compile_only and runtime_dir is not None:
        return RunResult(passed=False, error="runtime_dir is incompatible with compile_only",
                         execution_time=time.perf_counter() - started, work_dir=Path(runtime_dir), validated=False)
    if compare_fn is not None and not isinstance(compare_fn, dict):
        raise TypeError(f"compare_fn must be a dict of output name -> comparator, got {type(compare_fn).__name__}")
    if any(getattr(s, "is_resident", False) for s in specs or ()) and runtime_dir is None \
            and getattr(fn, "_func_type", None) != "host":
        # One dispatch on the simulator: a resident tensor is uploaded once and read back once,
        # which is what every tensor gets; the check is the public harness's.
        return RunResult(passed=False, execution_time=time.perf_counter() - started, validated=False,
                         error="resident is only supported for L3 distributed programs (a "
                         "@pl.jit.host kernel compiled with distributed_config).")
    try:
        passed, error, seconds, work_dir, bench, validated = native.run(
            fn, list(specs or ()), golden_fn, run_config, float(rtol), float(atol), compare_fn, bool(compile_only),
            bool(save_data), runtime_dir, golden_data,
        )
    except (KernelArgumentError, KernelArgumentMismatchError) as e:
        raise as_spec_error(e) from None
    return RunResult(
        passed=passed,
        error=error,
        execution_time=seconds,
        work_dir=Path(work_dir) if work_dir else None,
        bench=BenchStats(**bench) if bench else None,
        validated=validated,
    )


def run_jit(
    fn,
    specs,
    golden_fn=None,
    golden_data=None,
    compile_cfg=None,
    runtime_cfg=None,
    rtol=1e-5,
    atol=1e-5,
    compare_fn=None,
    compile_only=False,
    runtime_dir=None,
    save_data=False,
):
    """The older harness entry for a @pl.jit kernel: compile_cfg holds RunConfig fields,
    runtime_cfg execute_compiled's keywords (golden/legacy_config.py)."""
    config = legacy_config.jit_config(compile_cfg, runtime_cfg)
    return run(
        fn=fn,
        specs=specs,
        golden_fn=golden_fn,
        config=config,
        rtol=rtol,
        atol=atol,
        compare_fn=compare_fn,
        compile_only=compile_only,
        runtime_dir=runtime_dir,
        save_data=save_data,
        golden_data=golden_data,
    )
