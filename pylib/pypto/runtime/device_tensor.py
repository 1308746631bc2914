"""Handles to worker-resident tensors, as PyPTO's pypto.runtime.DeviceTensor and
StackedDeviceTensor. On the simulator a worker's device memory is a tensor the
DistributedWorker owns (`buffer`); a handle names it and stays valid until it is freed or the
worker closes."""

import math

import torch


def _check_shape(shape, what):
    shape = tuple(shape)
    if not shape or any(isinstance(d, bool) or not isinstance(d, int) or d <= 0 for d in shape):
        raise ValueError("%s must be a non-empty tuple of positive ints, got %r" % (what, shape))
    return shape


class DeviceTensor:
    """A buffer resident on one worker: data_ptr, shape, dtype; `buffer` is the simulated
    device memory (a torch tensor the worker owns)."""

    __slots__ = ("data_ptr", "shape", "dtype", "buffer")

    def __init__(self, data_ptr, shape, dtype, *, buffer=None):
        if isinstance(data_ptr, bool) or not isinstance(data_ptr, int) or data_ptr <= 0:
            raise ValueError("DeviceTensor.data_ptr must be a positive int, got %r" % (data_ptr,))
        if not isinstance(dtype, torch.dtype):
            raise TypeError("DeviceTensor.dtype must be a torch.dtype, got %s" % type(dtype).__name__)
        self.data_ptr = data_ptr
        self.shape = _check_shape(shape, "DeviceTensor.shape")
        self.dtype = dtype
        self.buffer = buffer

    @property
    def nbytes(self):
        return math.prod(self.shape) * torch.empty((), dtype=self.dtype).element_size()

    def __repr__(self):
        return "DeviceTensor(data_ptr=0x%x, shape=%s, dtype=%s)" % (self.data_ptr, self.shape, self.dtype)


class StackedDeviceTensor:
    """A [B, *tail] tensor whose shard i is resident on worker worker_ids[i]. Passed to an L3
    program for a parameter the host program slices along its leading axis per rank."""

    __slots__ = ("shards", "full_shape", "worker_ids", "buffer")

    def __init__(self, shards, full_shape, worker_ids, *, buffer=None):
        shards, full_shape, worker_ids = tuple(shards), tuple(full_shape), tuple(worker_ids)
        if len(full_shape) < 2 or full_shape[0] < 1:
            raise ValueError("StackedDeviceTensor.full_shape must be [B, *tail] with B >= 1, got %r"
                             % (full_shape,))
        if len(shards) != full_shape[0] or len(worker_ids) != full_shape[0]:
            raise ValueError("StackedDeviceTensor of shape %r needs %d shards and worker ids, got %d and %d"
                             % (full_shape, full_shape[0], len(shards), len(worker_ids)))
        if len(set(worker_ids)) != len(worker_ids):
            raise ValueError("StackedDeviceTensor.worker_ids must be distinct, got %r" % (worker_ids,))
        for i, shard in enumerate(shards):
            if not isinstance(shard, DeviceTensor):
                raise TypeError("shard %d must be a DeviceTensor, got %s" % (i, type(shard).__name__))
            if shard.shape != full_shape[1:] or shard.dtype != shards[0].dtype:
                raise ValueError("shard %d is %s %s; expected %s %s" % (i, shard.dtype, shard.shape,
                                                                       shards[0].dtype, full_shape[1:]))
        self.shards, self.full_shape, self.worker_ids = shards, full_shape, worker_ids
        self.buffer = buffer  # the simulator's device memory of all shards, [B, *tail]

    @property
    def dtype(self):
        return self.shards[0].dtype

    @property
    def shape(self):
        return self.full_shape

    def __getitem__(self, index):
        return self.shards[index]

    def __len__(self):
        return len(self.shards)

    def __repr__(self):
        return "StackedDeviceTensor(full_shape=%s, dtype=%s, worker_ids=%s)" % (
            self.full_shape, self.dtype, self.worker_ids)
