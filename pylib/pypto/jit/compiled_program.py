"""CompiledProgram: one build directory plus its IR, callable in place on the simulator."""

from pypto.compiler.errors import KernelArgumentError
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


class CompiledProgram:
    def __init__(self, output_dir, program, meta):
        self._output_dir = output_dir
        self._program = Program(program)
        self._meta = meta
        self.platform = meta["platform"]
        self.backend_type = meta["backend_type"]

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
        import torch
        fn = self._program["functions"][0]
        where = (self._program["source_file"], fn["line"])
        params = fn["params"]
        if len(args) != len(params):
            raise KernelArgumentError(*where, "%s: the compiled program takes %d arguments (%s), "
                                      "got %d" % (fn["name"], len(params),
                                                  ", ".join(p["name"] for p in params), len(args)))
        for p, a in zip(params, args):
            if p["kind"] == "tensor" and not isinstance(a, torch.Tensor):
                raise KernelArgumentError(*where, "%s: parameter '%s' is a tensor but a %s was "
                                          "passed" % (fn["name"], p["name"], type(a).__name__))
            if p["kind"] == "scalar" and (a is RUNTIME or not isinstance(a, (bool, int, float))):
                raise KernelArgumentError(*where, "%s: parameter '%s' is a scalar and needs a "
                                          "number at dispatch, got %r" % (fn["name"], p["name"], a))

    def __call__(self, *args, config=None):
        """Dispatch in place (outputs are written into the tensors passed); returns None."""
        platform = self.platform if config is None else _as_platform(config)
        self._check_args(args)
        import _pypto_golden  # native, provided by the host; only needed to dispatch
        _pypto_golden.simulate(str(self._output_dir), list(args), platform)
        return None


def _as_platform(config):
    return as_run_config(config).platform


