"""CompiledProgram: one build directory plus its IR, callable in place on the simulator."""

import json
from pathlib import Path

from pypto.compiler.errors import KernelArgumentError
from pypto.ir.param_info import param_infos
from pypto.ir.program import Program
from pypto.language.types import RUNTIME


def as_run_config(config):
    """RunConfig from None / a RunConfig / a dict of RunConfig fields."""
    from pypto.runtime import RunConfig
    if config is None:
        return RunConfig()
    if isinstance(config, RunConfig):
        return config
    if isinstance(config, dict):
        return RunConfig(**config)
    raise TypeError("config must be a pypto.runtime.RunConfig (or a dict of its fields), got %s"
                    % type(config).__name__)


def read_build_json(path, what):
    """A build directory's JSON file; unreadable or malformed is a ValueError naming it."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise ValueError("%s: cannot read the %s (%s); recompile the kernel to refresh the build "
                         "directory" % (path, what, e)) from None


class CompiledProgram:
    META_FILE = "compiled_meta.json"

    def __init__(self, output_dir, program, meta):
        self._output_dir = Path(output_dir)
        self._program = Program(program)
        self._param_kinds = tuple(p["kind"] for p in self._program["functions"][0]["params"])
        # What the native dispatch checks the arguments against, one letter a parameter.
        self._kind_letters = "".join({"tensor": "t", "scalar": "s"}.get(k, "-") for k in self._param_kinds)
        self._meta = meta
        self.platform = meta["platform"]
        self.backend_type = meta["backend_type"]

    @classmethod
    def from_dir(cls, output_dir, *, platform=None, backend_type=None):
        """The program of an existing build directory, callable without compiling again (PyPTO's
        runtime_dir replay): its parameters from the meta file, its program from sim_program.json.
        `platform` / `backend_type` override the recorded ones."""
        from pypto.compiler import META_SCHEMA
        out = Path(output_dir).resolve()
        meta_path = out / cls.META_FILE
        if not meta_path.is_file():
            raise FileNotFoundError("%s not found: %s is not a build directory of a%s program (recompile "
                                    "it to make one)" % (meta_path, out, "n L3" if cls is not CompiledProgram
                                                         else " single-chip"))
        meta = read_build_json(meta_path, "parameter metadata")
        if not isinstance(meta, dict) or meta.get("schema") != META_SCHEMA:
            raise ValueError("%s: schema %r, this pypto-golden reads schema %d; recompile the kernel to "
                             "refresh the build directory" % (meta_path, meta.get("schema") if
                                                              isinstance(meta, dict) else None, META_SCHEMA))
        param_infos(meta, meta_path)  # a malformed parameter fails here, not at the first call
        program_path = out / "sim_program.json"
        if not program_path.is_file():
            raise FileNotFoundError("%s not found: %s was not built by pypto-golden, whose simulator runs "
                                    "the program in that file" % (program_path, out))
        compiled = cls(out, read_build_json(program_path, "simulator program"), meta)
        if platform is not None:
            compiled.platform = platform
        if backend_type is not None:
            compiled.backend_type = backend_type
        return compiled

    def _get_metadata(self):
        """(ParamInfo per parameter, the indices of the pure Out ones, one placeholder per
        returned value), as PyPTO's compiled programs give them."""
        infos = param_infos(self._meta, self._output_dir / self.META_FILE)
        return infos, self.output_indices, [None] * self._meta["num_return_types"]

    @property
    def output_dir(self):
        return self._output_dir

    @property
    def program(self):
        """The sim_program IR dict (host/sim/IR.md), with PyPTO's read-only Program
        attributes (`name`, `functions`) on top."""
        return self._program

    @property
    def param_names(self):
        return [p["name"] for p in self._meta["params"]]

    @property
    def output_indices(self):
        """Indices of the pure `Out` parameters."""
        return [i for i, p in enumerate(self._meta["params"]) if p["direction"] == "Out"]

    @property
    def has_return(self):
        return self._meta["num_return_types"] > 0

    def __fspath__(self):
        return str(self._output_dir)

    def __str__(self):
        return str(self._output_dir)

    def __repr__(self):
        return "CompiledProgram(%r, output_dir=%r)" % (self._program["entry"],
                                                        str(self._output_dir))

    def _check_args(self, args):
        # The arguments the native check refused: the first that is not of its kind raises.
        import torch
        kinds = self._param_kinds
        if len(args) != len(kinds):
            raise self._argument_error("the compiled program takes %d arguments (%s), got %d" % (
                len(kinds), ", ".join(self.param_names), len(args)))
        for i, (kind, a) in enumerate(zip(kinds, args)):
            if kind == "tensor" and not isinstance(a, torch.Tensor):
                raise self._argument_error("parameter '%s' is a tensor but a %s was passed"
                                           % (self.param_names[i], type(a).__name__))
            if kind == "scalar" and (a is RUNTIME or not isinstance(a, (bool, int, float))):
                raise self._argument_error("parameter '%s' is a scalar and needs a number at "
                                           "dispatch, got %r" % (self.param_names[i], a))

    def _argument_error(self, detail):
        fn = self._program["functions"][0]
        return KernelArgumentError(self._program["source_file"], fn["line"],
                                  "%s: %s" % (fn["name"], detail))

    def __call__(self, *args, config=None):
        """Dispatch in place (outputs are written into the tensors passed); returns None."""
        platform = self.platform if config is None else _as_platform(config)
        import _pypto_golden  # native, provided by the host; only needed to dispatch
        # The native side checks the arguments' kinds first and dispatches nothing on a
        # mismatch, which _check_args then names.
        if not _pypto_golden.simulate(str(self._output_dir), args, platform, 0, self._kind_letters):
            self._check_args(args)
            _pypto_golden.simulate(str(self._output_dir), args, platform)
        return None


def _as_platform(config):
    return as_run_config(config).platform


