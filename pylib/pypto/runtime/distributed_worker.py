"""DistributedWorker: PyPTO's prepare-once, dispatch-many handle for L3 programs, on the
simulator. It holds one or more DistributedCompiledPrograms that share devices (a serving
loop's prefill and decode) and the tensors resident on those devices: alloc_tensor /
alloc_stacked_tensor upload once, and every run() works in them, so what one dispatch writes
(a KV cache) the next one reads. Host tensors passed to run() are uploaded and read back per
dispatch, as with a one-shot call."""

import torch

from pypto.runtime.device_tensor import DeviceTensor, StackedDeviceTensor


def _poisoned(shape, dtype):
    # Fresh device memory holds whatever it held: NaN makes a read of it visible.
    t = torch.empty(shape, dtype=dtype)
    return t.fill_(float("nan")) if t.is_floating_point() else t.zero_()


class DistributedWorker:
    def __init__(self, compiled, config=None, *, persistent=False, reset_persistent_windows=None,
                 callbacks=None, sub_worker_overrides=None, inherited_host_tensors=None,
                 startup_timeout_s=None):
        from pypto.jit.distributed_compiled_program import DistributedCompiledProgram
        programs = [compiled] if isinstance(compiled, DistributedCompiledProgram) else list(compiled)
        if not programs:
            raise ValueError("DistributedWorker requires at least one compiled program")
        for p in programs:
            if not isinstance(p, DistributedCompiledProgram):
                raise TypeError("DistributedWorker takes DistributedCompiledPrograms (L3 builds), got %s"
                                % type(p).__name__)
        primary = programs[0]
        for p in programs[1:]:
            if p.platform != primary.platform or \
                    p.distributed_config.device_ids != primary.distributed_config.device_ids:
                raise ValueError("DistributedWorker: %s runs on %s devices %r but %s on %s devices %r; the "
                                 "programs of one worker must share platform and devices"
                                 % (p.output_dir, p.platform, p.distributed_config.device_ids,
                                    primary.output_dir, primary.platform,
                                    primary.distributed_config.device_ids))
        names = sorted({**(callbacks or {}), **(sub_worker_overrides or {})})
        if names:
            raise ValueError("callbacks names %s, which are not sub-workers of any prepared program"
                             % ", ".join(repr(n) for n in names))
        inherited = list(inherited_host_tensors or ())
        for t in inherited:
            if not isinstance(t, torch.Tensor):
                raise TypeError("DistributedWorker inherited_host_tensors entries must be torch.Tensor "
                                "objects, got %s" % type(t).__name__)
        self._programs = programs
        self._config = config
        self._world = len(primary.distributed_config.device_ids)
        self._inherited = inherited
        self._live = {}  # id(handle) -> handle: what this worker holds
        self._closed = False

    # -- worker-resident memory ------------------------------------------------------------

    def _check_worker(self, worker_id, what):
        if isinstance(worker_id, bool) or not isinstance(worker_id, int) or not 0 <= worker_id < self._world:
            raise ValueError("%s: worker_id %r is not a worker of this DistributedWorker (0..%d)"
                             % (what, worker_id, self._world - 1))

    def alloc_tensor(self, shape, dtype, *, init=None, worker_id=0):
        """A tensor resident on worker `worker_id`: a copy of `init`, else uninitialised."""
        self._require_open("alloc_tensor")
        self._check_worker(worker_id, "alloc_tensor")
        shape = tuple(shape)
        if init is not None:
            if not isinstance(init, torch.Tensor) or tuple(init.shape) != shape or init.dtype != dtype:
                raise ValueError("alloc_tensor: init must be a %s tensor of shape %s, got %s" % (
                    dtype, shape, "%s %s" % (init.dtype, tuple(init.shape)) if isinstance(init, torch.Tensor)
                    else type(init).__name__))
            buffer = init.detach().to("cpu").clone(memory_format=torch.contiguous_format)
        else:
            buffer = _poisoned(shape, dtype)
        handle = DeviceTensor(buffer.data_ptr(), shape, dtype, buffer=buffer)
        self._live[id(handle)] = handle
        return handle

    def alloc_stacked_tensor(self, host, *, worker_ids=None):
        """Shard i of `host` ([B, *tail]) resident on worker worker_ids[i] (default: i)."""
        self._require_open("alloc_stacked_tensor")
        if not isinstance(host, torch.Tensor) or host.dim() < 2:
            raise ValueError("alloc_stacked_tensor: host must be a [B, *tail] torch.Tensor, got %s"
                             % (tuple(host.shape) if isinstance(host, torch.Tensor) else type(host).__name__))
        count = host.shape[0]
        worker_ids = list(range(count)) if worker_ids is None else list(worker_ids)
        if len(worker_ids) != count:
            raise ValueError("alloc_stacked_tensor: %d shards need %d worker ids, got %r"
                             % (count, count, worker_ids))
        for w in worker_ids:
            self._check_worker(w, "alloc_stacked_tensor")
        buffer = host.detach().to("cpu").clone(memory_format=torch.contiguous_format)
        shards = [DeviceTensor(buffer[i].data_ptr(), tuple(buffer.shape[1:]), buffer.dtype, buffer=buffer[i])
                  for i in range(count)]
        handle = StackedDeviceTensor(shards, tuple(buffer.shape), worker_ids, buffer=buffer)
        self._live[id(handle)] = handle
        return handle

    def _release(self, handle, kind, what):
        if not isinstance(handle, kind) or self._live.get(id(handle)) is not handle:
            raise ValueError("%s: %r is not a live tensor of this worker (freed already, or allocated by "
                             "another worker)" % (what, handle))
        del self._live[id(handle)]

    def free_tensor(self, handle):
        self._release(handle, DeviceTensor, "free_tensor")

    def free_stacked_tensor(self, handle):
        self._release(handle, StackedDeviceTensor, "free_stacked_tensor")

    def release_inherited_host_tensor_refs(self):
        """Drops the worker's references to inherited_host_tensors."""
        self._inherited.clear()

    # -- dispatch ----------------------------------------------------------------------------

    def _device_arg(self, k, arg):
        if isinstance(arg, StackedDeviceTensor):
            if self._live.get(id(arg)) is not arg:
                raise ValueError("argument %d: %r is not a live tensor of this worker" % (k, arg))
            return arg.buffer
        if isinstance(arg, DeviceTensor):
            owners = [h for h in self._live.values() if h is arg or
                      (isinstance(h, StackedDeviceTensor) and any(s is arg for s in h.shards))]
            if not owners:
                raise ValueError("argument %d: %r is not a live tensor of this worker" % (k, arg))
            return arg.buffer
        return arg

    def run(self, compiled, *args, config=None):
        """Dispatches `compiled` (one of this worker's programs) in place: resident tensors are
        worked in where they live, host tensors uploaded and their outputs read back."""
        self._require_open("run")
        if not any(compiled is p for p in self._programs):
            raise ValueError("run: %r was not prepared on this worker (its programs: %s)"
                             % (compiled, ", ".join(str(p.output_dir) for p in self._programs)))
        device_args = [self._device_arg(k, a) for k, a in enumerate(args)]
        return compiled(*device_args, config=config if config is not None else self._config)

    def __call__(self, *args, config=None):
        if len(self._programs) != 1:
            raise TypeError("this DistributedWorker holds %d programs; say which with "
                            "worker.run(compiled, *args)" % len(self._programs))
        return self.run(self._programs[0], *args, config=config)

    # -- lifetime ----------------------------------------------------------------------------

    def _require_open(self, what):
        if self._closed:
            raise RuntimeError("DistributedWorker.%s: the worker is closed" % what)

    def close(self):
        """Frees every resident tensor; the worker cannot be used after."""
        self._live.clear()
        self._inherited.clear()
        self._closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
