"""pycuda.gpuarray on CUDA Playground: arrays in the playground's device memory.

A GPUArray passed to a kernel is its device pointer, as in PyCUDA. Element-wise arithmetic, reductions and
comparisons are computed by NumPy on the array's values fetched from the device and the result stored back on it
(these are the library's own kernels in PyCUDA, not the script's; the script's kernels are what the playground
runs and shows)."""
import builtins

import numpy as np

from cuda_playground import _runtime as rt
from cuda_playground._hostmath import HostArithmetic
from . import driver as _drv


def _memory(nbytes, name, shape=None, dtype=None):
    return _drv._call(rt.DeviceMemory, builtins.max(int(nbytes), 1), name, 1, shape, dtype)


class GPUArray(HostArithmetic):
    def __init__(self, shape, dtype, allocator=None, base=None, gpudata=None, strides=None, order="C"):
        self._init_shape(shape, dtype)
        self.base = base
        if gpudata is None:
            gpudata = _drv.DeviceAllocation.__new__(_drv.DeviceAllocation)
            gpudata._device_memory = _memory(self.nbytes, "gpuarray", self.shape, self.dtype)
            gpudata._device_offset = 0
        self.gpudata = gpudata
        self._device_memory = gpudata._device_memory
        self._device_offset = getattr(gpudata, "_device_offset", 0)

    # ---- host <-> device
    @property
    def ptr(self):
        return self._device_memory.address + self._device_offset

    def __int__(self):
        return self.ptr

    @property
    def mem_size(self):
        return self.size

    def set(self, ary, async_=False, stream=None):
        ary = np.ascontiguousarray(ary)
        if ary.size != self.size:
            raise ValueError("ary and self must be the same size")
        if ary.dtype != self.dtype:
            raise ValueError("ary and self must have the same dtype")
        _drv._call(rt.htod, self._device_memory, self._device_offset, ary, _drv._pinned(ary))

    def set_async(self, ary, stream=None):
        self.set(ary)

    def get(self, ary=None, pagelocked=False, async_=False, stream=None):
        if ary is None:
            ary = np.empty(self.shape, self.dtype)
        elif ary.size != self.size or ary.dtype != self.dtype:
            raise TypeError("'ary' has non-matching size or type")
        _drv._call(rt.dtoh, ary, self._device_memory, self._device_offset, self.nbytes, _drv._pinned(ary))
        return ary

    def get_async(self, stream=None, ary=None):
        return self.get(ary)

    def copy(self):
        out = GPUArray(self.shape, self.dtype)
        _drv._call(rt.dtod, out._device_memory, 0, self._device_memory, self._device_offset, self.nbytes)
        return out

    def __repr__(self):
        return repr(self.get())

    def __array__(self, dtype=None):
        a = self.get()
        return a if dtype is None else a.astype(dtype)

    def fill(self, value, stream=None):
        self.set(np.full(self.shape, value, self.dtype))
        return self

    def reshape(self, *shape, order="C"):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        shape = np.empty(self.size, np.uint8).reshape(shape).shape
        return GPUArray(shape, self.dtype, base=self, gpudata=self.gpudata)

    def ravel(self):
        return self.reshape(self.size)

    def view(self, dtype=None):
        dtype = np.dtype(dtype or self.dtype)
        shape = self.shape[:-1] + (self.shape[-1] * self.dtype.itemsize // dtype.itemsize,) if self.shape else ()
        return GPUArray(shape, dtype, base=self, gpudata=self.gpudata)

    def astype(self, dtype, stream=None):
        return to_gpu(self.get().astype(dtype))

    def _from_host(self, array):
        return to_gpu(array)

    def mul_add(self, selffac, other, otherfac, add_timer=None, stream=None):
        return to_gpu(selffac * self.get() + otherfac * other.get())

    def sum(self, dtype=None, stream=None):
        return sum(self, dtype)

    def max(self, stream=None):
        return max(self)

    def min(self, stream=None):
        return min(self)

    def dot(self, other, dtype=None):
        return dot(self, other, dtype)

    def conj(self):
        return to_gpu(np.conj(self.get()))

    def real(self):
        return to_gpu(np.real(self.get()))


def to_gpu(ary, allocator=None):
    ary = np.ascontiguousarray(ary)
    out = GPUArray(ary.shape, ary.dtype)
    out.set(ary)
    return out


def to_gpu_async(ary, allocator=None, stream=None):
    return to_gpu(ary)


def empty(shape, dtype, allocator=None, order="C"):
    return GPUArray(shape, dtype)


def zeros(shape, dtype, allocator=None, order="C"):
    out = GPUArray(shape, dtype)
    _drv._call(rt.memset, out._device_memory, 0, b"\x00", builtins.max(out.nbytes, 1))
    return out


def ones(shape, dtype=np.float64, allocator=None):
    return to_gpu(np.ones(shape, dtype))


def empty_like(other, dtype=None):
    return GPUArray(other.shape, dtype or other.dtype)


def zeros_like(other, dtype=None):
    return zeros(other.shape, dtype or other.dtype)


def ones_like(other, dtype=None):
    return ones(other.shape, dtype or other.dtype)


def arange(*args, **kwargs):
    dtype = kwargs.pop("dtype", None)
    host = np.arange(*args, dtype=dtype)
    return to_gpu(host)


def _scalar(value, dtype):
    return to_gpu(np.asarray(value, dtype=dtype))


def sum(a, dtype=None, stream=None):  # noqa: A001 - PyCUDA's name
    host = a.get()
    dtype = dtype or host.dtype
    return _scalar(host.sum(dtype=dtype), dtype)


def max(a, stream=None):  # noqa: A001
    return _scalar(a.get().max(), a.dtype)


def min(a, stream=None):  # noqa: A001
    return _scalar(a.get().min(), a.dtype)


def dot(a, b, dtype=None, stream=None):
    x, y = a.get(), b.get()
    dtype = dtype or np.result_type(x.dtype, y.dtype)
    return _scalar(np.dot(x.reshape(-1).astype(dtype), y.reshape(-1).astype(dtype)), dtype)


def subset_dot(subset, a, b, dtype=None, stream=None):
    idx = subset.get()
    return dot(to_gpu(a.get()[idx]), to_gpu(b.get()[idx]), dtype)


def maximum(a, b):
    return to_gpu(np.maximum(a.get(), b.get() if isinstance(b, GPUArray) else b))


def minimum(a, b):
    return to_gpu(np.minimum(a.get(), b.get() if isinstance(b, GPUArray) else b))


def if_positive(criterion, then_, else_):
    return to_gpu(np.where(criterion.get() > 0, then_.get(), else_.get()))


def concatenate(arrays, axis=0):
    return to_gpu(np.concatenate([a.get() for a in arrays], axis))
