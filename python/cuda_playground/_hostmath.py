"""What pycuda's GPUArray and cupy's ndarray share: shape and element facts (`_init_shape`), and arithmetic,
comparisons and in-place updates computed by NumPy on the values fetched from the device: a class mixes this in
with `get()`, `set(host)` and `_from_host(array)` (a new device array holding `array`)."""
import numbers

import numpy as np


class HostArithmetic:
    __array_priority__ = 100
    __hash__ = None

    def _init_shape(self, shape, dtype):
        if isinstance(shape, numbers.Integral):
            shape = (int(shape),)
        self.shape = tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype)
        self.size = int(np.prod(self.shape)) if self.shape else 1
        self.nbytes = self.size * self.dtype.itemsize

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def strides(self):  # C order
        out, step = [], self.itemsize
        for s in reversed(self.shape):
            out.append(step)
            step *= s
        return tuple(reversed(out))

    def _binary(self, other, op, reverse=False):
        a = self.get()
        b = other.get() if isinstance(other, HostArithmetic) else other
        return self._from_host(np.asarray(op(b, a) if reverse else op(a, b)))

    def _inplace(self, other, op):
        result = np.asarray(op(self.get(), other.get() if isinstance(other, HostArithmetic) else other))
        self.set(result.astype(self.dtype))
        return self

    def __add__(self, o): return self._binary(o, np.add)
    def __radd__(self, o): return self._binary(o, np.add, True)
    def __sub__(self, o): return self._binary(o, np.subtract)
    def __rsub__(self, o): return self._binary(o, np.subtract, True)
    def __mul__(self, o): return self._binary(o, np.multiply)
    def __rmul__(self, o): return self._binary(o, np.multiply, True)
    def __truediv__(self, o): return self._binary(o, np.true_divide)
    def __rtruediv__(self, o): return self._binary(o, np.true_divide, True)
    def __pow__(self, o): return self._binary(o, np.power)
    def __rpow__(self, o): return self._binary(o, np.power, True)
    def __matmul__(self, o): return self._binary(o, np.matmul)
    def __neg__(self): return self._from_host(-self.get())
    def __abs__(self): return self._from_host(np.abs(self.get()))
    def __iadd__(self, o): return self._inplace(o, np.add)
    def __isub__(self, o): return self._inplace(o, np.subtract)
    def __imul__(self, o): return self._inplace(o, np.multiply)
    def __itruediv__(self, o): return self._inplace(o, np.true_divide)
    def __lt__(self, o): return self._binary(o, np.less)
    def __le__(self, o): return self._binary(o, np.less_equal)
    def __gt__(self, o): return self._binary(o, np.greater)
    def __ge__(self, o): return self._binary(o, np.greater_equal)
    def __eq__(self, o): return self._binary(o, np.equal)
    def __ne__(self, o): return self._binary(o, np.not_equal)

    def __getitem__(self, index):
        return self._from_host(np.ascontiguousarray(self.get()[index]))

    def __setitem__(self, index, value):
        host = self.get()
        host[index] = value.get() if isinstance(value, HostArithmetic) else value
        self.set(host)

    @property
    def T(self):
        return self._from_host(np.ascontiguousarray(self.get().T))

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __str__(self):
        return str(self.get())

    def __bool__(self):
        if self.size != 1:
            raise ValueError("The truth value of an array with more than one element is ambiguous.")
        return bool(self.get().reshape(-1)[0])

    def __float__(self):
        return float(self.get().reshape(-1)[0])
