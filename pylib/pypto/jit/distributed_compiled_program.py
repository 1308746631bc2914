"""DistributedCompiledProgram: the build of an L3 (@pl.jit.host) program. Callable in place like
a CompiledProgram; reloadable from its directory (distributed_meta.json); and prepare() gives a
DistributedWorker, whose worker-resident tensors outlive a dispatch."""

from pypto.jit.compiled_program import CompiledProgram, read_build_json


class DistributedCompiledProgram(CompiledProgram):
    META_FILE = "distributed_meta.json"

    def __init__(self, output_dir, program, meta, distributed_config=None):
        super().__init__(output_dir, program, meta)
        self._distributed_config = distributed_config

    @classmethod
    def from_dir(cls, output_dir, *, platform=None, backend_type=None, distributed_config=None):
        """As CompiledProgram.from_dir, for an L3 build. `distributed_config` overrides the
        recorded one; it must name as many devices as the program has ranks."""
        compiled = super().from_dir(output_dir, platform=platform, backend_type=backend_type)
        if distributed_config is not None:
            ranks = len(compiled.program.get("devices") or ())
            if len(distributed_config.device_ids) != ranks:
                raise ValueError("DistributedCompiledProgram.from_dir(%s): distributed_config names %d device(s) "
                                 "%r, but the program was built for %d rank(s) %r; recompile it for these "
                                 "devices" % (compiled.output_dir, len(distributed_config.device_ids),
                                              distributed_config.device_ids, ranks,
                                              compiled.program.get("devices")))
            compiled._distributed_config = distributed_config
        return compiled

    @property
    def distributed_config(self):
        """The DistributedConfig the program was built with (or given to from_dir)."""
        if self._distributed_config is None:
            from pypto.runtime.run_config import DistributedConfig
            path = self.output_dir / self.META_FILE
            recorded = read_build_json(path, "parameter metadata").get("distributed_config") or {}
            try:
                self._distributed_config = DistributedConfig(**recorded)
            except (TypeError, ValueError) as e:
                raise ValueError("%s: the recorded distributed_config is malformed (%s); recompile the "
                                 "kernel to refresh the build directory" % (path, e)) from None
        return self._distributed_config

    def prepare(self, config=None, *, extra_compiled=(), persistent=False, **options):
        """A DistributedWorker for this program (and `extra_compiled`, dispatched by
        worker.run(compiled, ...)); use it as a context manager."""
        from pypto.runtime.distributed_worker import DistributedWorker
        return DistributedWorker([self, *extra_compiled], config=config, persistent=persistent, **options)

    def __repr__(self):
        return "DistributedCompiledProgram(%s)" % self.output_dir
