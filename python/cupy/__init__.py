"""CuPy as CUDA Playground provides it: RawKernel, RawModule, ElementwiseKernel and ReductionKernel with CUDA C
bodies run on the playground's backends; ndarray with asarray/asnumpy/get and the creation functions. Arithmetic
and reductions on ndarrays are computed by NumPy on the values fetched from the device (CuPy's own kernels, not the
script's); the kernels the script writes are what the playground runs and shows."""
import builtins
import re

import numpy as np
from numpy import (bool_, complex64, complex128, dtype, float16, float32, float64, int8, int16, int32, int64,  # noqa
                   intp, uint8, uint16, uint32, uint64, pi, e, inf, nan, newaxis)

from cuda_playground import _runtime as rt
from cuda_playground._hostmath import HostArithmetic
from . import cuda  # noqa: F401

__version__ = "13.0.0"


def _translate(err):
    return cuda.driver.CUDADriverError(
        "%s: %s%s" % (err.name or "CUDA_ERROR", err.detail, ("\n  hint: " + err.hint) if err.hint else ""))


def _call(fn, *args, **kw):
    try:
        return fn(*args, **kw)
    except rt.DeviceError as e:
        raise _translate(e) from None


class ndarray(HostArithmetic):
    def __init__(self, shape, dtype=float, memptr=None, strides=None, order="C"):
        self._init_shape(shape, dtype)
        if memptr is None:
            memptr = cuda.MemoryPointer(cuda.Memory(_call(rt.DeviceMemory, builtins.max(self.nbytes, 1), "cupy array",
                                                          self.dtype.itemsize, self.shape, self.dtype)), 0)
        self.data = memptr
        self._device_memory = memptr.mem._device_memory
        self._device_offset = memptr.offset

    def get(self, stream=None, order="C", out=None):
        host = np.empty(self.shape, self.dtype) if out is None else out
        _call(rt.dtoh, host, self._device_memory, self._device_offset, self.nbytes)
        return host

    def set(self, arr, stream=None):
        arr = np.ascontiguousarray(arr, dtype=self.dtype)
        if arr.size != self.size:
            raise ValueError("Shape mismatch. Old shape: %s, new shape: %s" % (self.shape, arr.shape))
        _call(rt.htod, self._device_memory, self._device_offset, arr)

    def __array__(self, dtype=None):
        raise TypeError("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to construct a "
                        "NumPy array explicitly.")

    def __repr__(self):
        return "array(%s)" % np.array2string(self.get(), separator=", ")

    def __int__(self):
        return int(self.get().reshape(-1)[0])

    def item(self):
        return self.get().reshape(-1)[0].item()

    def copy(self, order="C"):
        out = ndarray(self.shape, self.dtype)
        _call(rt.dtod, out._device_memory, 0, self._device_memory, self._device_offset, self.nbytes)
        return out

    def reshape(self, *shape, order="C"):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        shape = np.empty(self.size, np.uint8).reshape(shape).shape
        return ndarray(shape, self.dtype, memptr=self.data)

    def ravel(self):
        return self.reshape(self.size)

    def astype(self, dtype, copy=True):
        return asarray(self.get().astype(dtype))

    def fill(self, value):
        self.set(np.full(self.shape, value, self.dtype))

    def _from_host(self, array):
        return asarray(array)

    def sum(self, axis=None, dtype=None, keepdims=False):
        return asarray(np.asarray(self.get().sum(axis=axis, dtype=dtype, keepdims=keepdims)))

    def mean(self, axis=None, dtype=None, keepdims=False):
        return asarray(np.asarray(self.get().mean(axis=axis, dtype=dtype, keepdims=keepdims)))

    def max(self, axis=None, keepdims=False):
        return asarray(np.asarray(self.get().max(axis=axis, keepdims=keepdims)))

    def min(self, axis=None, keepdims=False):
        return asarray(np.asarray(self.get().min(axis=axis, keepdims=keepdims)))

    def dot(self, other):
        return dot(self, other)


def asarray(a, dtype=None, order=None):
    if isinstance(a, ndarray):
        return a if dtype is None or np.dtype(dtype) == a.dtype else a.astype(dtype)
    host = np.ascontiguousarray(np.asarray(a, dtype=dtype))
    out = ndarray(host.shape, host.dtype)
    out.set(host)
    return out


array = asarray


def asnumpy(a, stream=None, order="C", out=None):
    if isinstance(a, ndarray):
        return a.get(out=out)
    return np.asarray(a)


def empty(shape, dtype=float, order="C"):
    return ndarray(shape, dtype)


def zeros(shape, dtype=float, order="C"):
    out = ndarray(shape, dtype)
    _call(rt.memset, out._device_memory, 0, b"\x00", builtins.max(out.nbytes, 1))
    return out


def ones(shape, dtype=float, order="C"):
    return asarray(np.ones(shape, dtype))


def full(shape, fill_value, dtype=None, order="C"):
    return asarray(np.full(shape, fill_value, dtype))


def empty_like(a, dtype=None, order="K", shape=None):
    return empty(shape or a.shape, dtype or a.dtype)


def zeros_like(a, dtype=None, order="K", shape=None):
    return zeros(shape or a.shape, dtype or a.dtype)


def ones_like(a, dtype=None, order="K", shape=None):
    return ones(shape or a.shape, dtype or a.dtype)


def arange(start, stop=None, step=1, dtype=None):
    return asarray(np.arange(start, stop, step, dtype=dtype) if stop is not None else np.arange(start, dtype=dtype))


def linspace(start, stop, num=50, endpoint=True, dtype=None):
    return asarray(np.linspace(start, stop, num, endpoint=endpoint, dtype=dtype))


def _host(x):
    return x.get() if isinstance(x, ndarray) else x


def _wrap(fn):
    def apply(*args, **kwargs):
        result = fn(*[_host(a) for a in args], **{k: _host(v) for k, v in kwargs.items()})
        return asarray(np.asarray(result)) if isinstance(result, (np.ndarray, np.generic)) else result
    return apply


for _name in ["sqrt", "exp", "log", "sin", "cos", "tan", "abs", "absolute", "maximum", "minimum", "where",
              "sum", "mean", "max", "min", "dot", "matmul", "clip", "square", "tanh", "floor", "ceil", "cumsum",
              "argmax", "argmin", "sort", "concatenate", "stack", "transpose", "allclose", "array_equal", "isclose",
              "add", "subtract", "multiply", "divide", "power", "amax", "amin", "count_nonzero", "histogram",
              "bincount"]:
    globals()[_name] = _wrap(getattr(np, _name))


class random:  # noqa: N801 - cupy.random, the functions courses use
    @staticmethod
    def seed(s=None):
        np.random.seed(s)

    @staticmethod
    def rand(*shape, dtype=float):
        return asarray(np.random.rand(*shape).astype(dtype))

    @staticmethod
    def random(size=None, dtype=float):
        return asarray(np.random.random(size).astype(dtype))

    @staticmethod
    def randn(*shape, dtype=float):
        return asarray(np.random.randn(*shape).astype(dtype))

    @staticmethod
    def randint(low, high=None, size=None, dtype=int):
        return asarray(np.random.randint(low, high, size).astype(dtype))


# ---- user kernels ----------------------------------------------------------------------------------------------

def _dims(value, what):
    return _call(rt.dims, value if isinstance(value, (tuple, list)) else (value,), what, 1)


class RawKernel:
    def __init__(self, code, name, options=(), backend="nvrtc", translate_cucomplex=False, *,
                 enable_cooperative_groups=False, jitify=False, _module=None):
        self.code = code
        self.name = name
        self.options = tuple(options)
        self._module = _module or rt.Module(code, options=options, label="RawKernel")
        self._info = None

    def _compiled(self):
        if self._info is None:
            try:
                self._info = self._module.compile(self.name)
            except rt.CompileFailed as e:
                raise cuda.compiler.CompileException(e.text, self.code, self.name, self.options) from None
            except rt.DeviceError as e:
                raise _translate(e) from None
        return self._info

    @property
    def attributes(self):
        info = self._compiled()
        return {"num_regs": info.get("registers", 0), "shared_size_bytes": info.get("shared_bytes", 0),
                "local_size_bytes": info.get("local_bytes", 0),
                "max_threads_per_block": info.get("max_threads_per_block", 1024)}

    @property
    def num_regs(self):
        return self.attributes["num_regs"]

    @property
    def max_threads_per_block(self):
        return self.attributes["max_threads_per_block"]

    def compile(self, log_stream=None):
        self._compiled()

    def __call__(self, grid, block, args, *, shared_mem=0, stream=None):
        params = self._compiled().get("params", [])
        wire = []
        for i, a in enumerate(args):
            param = params[i] if i < len(params) else {}
            if isinstance(a, ndarray):
                if param.get("pointer"):
                    rt.check_array_param(self.name, i, param, a.dtype)
                wire.append(rt.pointer_arg(a._device_memory, a._device_offset))
            elif isinstance(a, np.generic):
                wire.append(rt.scalar_arg(self.name, i, params, a))
            elif isinstance(a, bool):
                wire.append(rt.scalar_arg(self.name, i, params, np.bool_(a)))
            elif isinstance(a, int):
                wire.append(rt.scalar_arg(self.name, i, params, np.int64(a)))  # CuPy: a Python int is 8 bytes
            elif isinstance(a, float):
                wire.append(rt.scalar_arg(self.name, i, params, np.float64(a)))
            elif isinstance(a, np.ndarray):
                raise TypeError("Unsupported type %s (cuda-playground: pass cupy.asarray(...) for an array)"
                                % type(a))
            else:
                raise TypeError("Unsupported type %s" % type(a))
        _call(rt.launch, self._module, self.name, _dims(grid, "grid"), _dims(block, "block"), wire,
              shared_mem, getattr(stream, "handle", 0), rt.caller_line())


class RawModule:
    def __init__(self, *, code=None, path=None, options=(), backend="nvrtc", translate_cucomplex=False,
                 enable_cooperative_groups=False, name_expressions=None, jitify=False):
        if code is None:
            raise NotImplementedError("RawModule(path=...): CUDA Playground compiles CUDA C given as code= only")
        self.code = code
        self.options = tuple(options)
        self._module = rt.Module(code, options=options, label="RawModule")
        self._kernels = {}

    def get_function(self, name):
        if name not in self._kernels:
            k = RawKernel(self.code, name, self.options, _module=self._module)
            k._compiled()
            self._kernels[name] = k
        return self._kernels[name]

    def compile(self, log_stream=None):
        first = self._module.first_kernel()
        if first:
            self.get_function(first)

    def get_global(self, name):
        raise NotImplementedError("RawModule.get_global is not offered by CUDA Playground yet; pass the values "
                                  "as a kernel argument")


_C = {"float32": "float", "float64": "double", "int32": "int", "int64": "long long", "uint32": "unsigned int",
      "uint64": "unsigned long long", "int16": "short", "uint16": "unsigned short", "int8": "signed char",
      "uint8": "unsigned char", "bool": "bool", "float16": "__half"}


def _ctype(dt):
    name = np.dtype(dt).name
    if name not in _C:
        raise TypeError("cuda-playground: the element type %s is not offered in user kernels" % name)
    return _C[name]


_PARAM = re.compile(r"^\s*(raw\s+)?([A-Za-z_][\w]*)\s+([A-Za-z_]\w*)\s*$")


def _params(text):
    out = []
    for part in [p for p in text.split(",") if p.strip()]:
        m = _PARAM.match(part)
        if not m:
            raise ValueError("Syntax error: %s" % part.strip())
        out.append({"raw": bool(m.group(1)), "type": m.group(2), "name": m.group(3)})
    return out


def _array_param(param, ctype, written, sig, body):
    """An array parameter of a user kernel: `raw`, the pointer under its own name; else a pointer `_p_NAME` and
    NAME as this element (a copy of an input, a reference to an output)."""
    const = "" if written else "const "
    name = param["name"]
    if param["raw"]:
        sig.append("%s%s* __restrict__ %s" % (const, ctype, name))
    else:
        sig.append("%s%s* __restrict__ _p_%s" % (const, ctype, name))
        body.append("%s%s%s %s = _p_%s[i];" % (const, ctype, "&" if written else "", name, name))


def _typedef(type_defs, param, ctype):
    """`type_defs` with the typedef of `param`'s type placeholder (`T x` resolved to `ctype`) added once."""
    if param["type"] in _C or hasattr(np, param["type"]):
        return type_defs
    line = "typedef %s %s;\n" % (ctype, param["type"])
    return type_defs if line in type_defs else type_defs + line


class _UserKernel:
    """What ElementwiseKernel and ReductionKernel share: parameter lists, type placeholders, arguments."""

    def __init__(self, in_params, out_params, name, preamble, options):
        self.in_params = _params(in_params)
        self.out_params = _params(out_params)
        self.name = name
        self.preamble = preamble
        self.options = tuple(options or ())
        self._compiled = {}
        self._line = rt.caller_line()

    def _resolve(self, args, outs):
        types = {}
        for p, a in zip(self.in_params, args):
            if p["type"] not in _C and p["type"] != "bool" and not hasattr(np, p["type"]):
                if isinstance(a, ndarray):
                    types.setdefault(p["type"], a.dtype)
                elif isinstance(a, np.generic):
                    types.setdefault(p["type"], a.dtype)
        for p, a in zip(self.out_params, outs):
            if a is not None and p["type"] not in _C and not hasattr(np, p["type"]):
                types.setdefault(p["type"], a.dtype)

        def dt(p, fallback=None):
            t = p["type"]
            if t in types:
                return np.dtype(types[t])
            if hasattr(np, t):
                return np.dtype(getattr(np, t))
            if fallback is not None:
                return np.dtype(fallback)
            raise TypeError("Cannot determine the type of `%s` (%s)" % (p["name"], t))
        return dt

    def _inputs(self, ins, dt):
        """The kernel's parameters, per-element reads and wire arguments for the inputs, with the typedefs of the
        type placeholders they resolve."""
        sig, body, wire_args, key, type_defs = [], [], [], [], ""
        for p, a in zip(self.in_params, ins):
            t = dt(p, a.dtype if isinstance(a, (ndarray, np.generic)) else None)
            c = _ctype(t)
            type_defs = _typedef(type_defs, p, c)
            key.append((p["name"], t.name, isinstance(a, ndarray), p["raw"]))
            if isinstance(a, ndarray):
                _array_param(p, c, False, sig, body)
                wire_args.append(rt.pointer_arg(a._device_memory, a._device_offset))
            else:
                sig.append("%s %s" % (c, p["name"]))
                wire_args.append({"hex": np.asarray(a, t).tobytes().hex()})
        return sig, body, wire_args, key, type_defs

    def _build(self, key, text):
        if key not in self._compiled:
            module = rt.Module(text, options=self.options, label="%s `%s`" % (type(self).__name__, self.name),
                               line=0)
            try:
                module.compile(self.name)
            except rt.CompileFailed as e:
                raise cuda.compiler.CompileException(e.text, text, self.name, self.options) from None
            except rt.DeviceError as e:
                raise _translate(e) from None
            self._compiled[key] = module
        return self._compiled[key]

    def _size_of(self, args):
        size, shape = None, ()
        for a in args:
            if isinstance(a, ndarray) and a.shape:
                if size is not None and a.size != size:
                    raise ValueError("cuda-playground: the arrays of a user kernel must have the same size here "
                                     "(broadcasting between shapes is not offered): %d and %d" % (size, a.size))
                size, shape = a.size, a.shape
        return (1, ()) if size is None else (size, shape)


class ElementwiseKernel(_UserKernel):
    def __init__(self, in_params, out_params, operation, name="kernel", reduce_dims=True, preamble="",
                 no_return=False, return_tuple=False, loop_prep="", after_loop="", options=(), **kwargs):
        super().__init__(in_params, out_params, name, preamble, options)
        self.operation = operation
        self.loop_prep, self.after_loop = loop_prep, after_loop
        self.no_return, self.return_tuple = no_return, return_tuple

    def __call__(self, *args, size=None, block_size=128, stream=None):
        n_in = len(self.in_params)
        if len(args) not in (n_in, n_in + len(self.out_params)):
            raise TypeError("Wrong number of arguments for %s" % self.name)
        ins, outs = list(args[:n_in]), list(args[n_in:]) or [None] * len(self.out_params)
        dt = self._resolve(ins, outs)
        n, shape = self._size_of(ins + [o for o in outs if o is not None])
        if size is not None:
            n, shape = int(size), (int(size),)
        for k, p in enumerate(self.out_params):
            if outs[k] is None:
                outs[k] = empty(shape, dt(p))
        sig, body, wire_args, key, type_defs = self._inputs(ins, dt)
        for p, a in zip(self.out_params, outs):
            c = _ctype(a.dtype)
            type_defs = _typedef(type_defs, p, c)
            key.append((p["name"], a.dtype.name, True, p["raw"]))
            _array_param(p, c, True, sig, body)
            wire_args.append(rt.pointer_arg(a._device_memory, a._device_offset))
        text = ("%s\n%s"
                "struct _cp_index { long long s; __device__ long long size() const { return s; } };\n"
                "extern \"C\" __global__ void %s(%s, long long _n)\n{\n"
                "    const _cp_index _ind{_n};\n    %s\n"
                "    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < _n;\n"
                "         i += (long long)blockDim.x * gridDim.x) {\n"
                "        %s\n        %s;\n    }\n    %s\n}\n"
                % (self.preamble, type_defs, self.name, ", ".join(sig), self.loop_prep, "\n        ".join(body),
                   self.operation, self.after_loop))
        module = self._build(tuple(key), text)
        wire_args.append({"hex": np.int64(n).tobytes().hex()})
        block = int(block_size)
        grid = builtins.max(1, builtins.min((n + block - 1) // block, 65535))
        _call(rt.launch, module, self.name, [grid, 1, 1], [block, 1, 1], wire_args, 0, getattr(stream, "handle", 0),
              rt.caller_line())
        if self.no_return:
            return None
        if len(outs) == 1 and not self.return_tuple:
            return outs[0]
        return tuple(outs)


class ReductionKernel(_UserKernel):
    def __init__(self, in_params, out_params, map_expr, reduce_expr, post_map_expr, identity, name="reduce_kernel",
                 reduce_type=None, reduce_dims=True, preamble="", options=()):
        super().__init__(in_params, out_params, name, preamble, options)
        self.map_expr, self.reduce_expr, self.post_map_expr = map_expr, reduce_expr, post_map_expr
        self.identity, self.reduce_type = identity, reduce_type

    def __call__(self, *args, out=None, axis=None, keepdims=False, stream=None):
        if axis is not None:
            raise NotImplementedError("cuda-playground: ReductionKernel reduces the whole array (axis=None) only")
        n_in = len(self.in_params)
        ins = list(args[:n_in])
        outs = list(args[n_in:]) or [out]
        dt = self._resolve(ins, outs)
        n, _ = self._size_of(ins)
        if outs[0] is None:
            outs[0] = empty((), dt(self.out_params[0], ins[0].dtype if isinstance(ins[0], ndarray) else None))
        o = outs[0]
        oc = _ctype(o.dtype)
        rtype = self.reduce_type or oc
        rtype = _C.get(rtype, rtype)
        sig, body, wire_args, key, type_defs = self._inputs(ins, dt)
        p0 = self.out_params[0]
        type_defs = _typedef(type_defs, p0, oc)
        sig.append("%s* __restrict__ _p_%s" % (oc, p0["name"]))
        wire_args.append(rt.pointer_arg(o._device_memory, o._device_offset))
        key.append((p0["name"], o.dtype.name))
        text = ("%s\n%stypedef %s _type_reduce;\n"
                "extern \"C\" __global__ void %s(%s, long long _n)\n{\n"
                "    __shared__ _type_reduce _sdata[256];\n"
                "    _type_reduce _acc = _type_reduce(%s);\n"
                "    for (long long i = threadIdx.x; i < _n; i += blockDim.x) {\n"
                "        %s\n        const _type_reduce a = _acc, b = _type_reduce(%s);\n"
                "        _acc = (%s);\n    }\n"
                "    _sdata[threadIdx.x] = _acc;\n    __syncthreads();\n"
                "    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {\n"
                "        if (threadIdx.x < s) {\n"
                "            const _type_reduce a = _sdata[threadIdx.x], b = _sdata[threadIdx.x + s];\n"
                "            _sdata[threadIdx.x] = (%s);\n        }\n        __syncthreads();\n    }\n"
                "    if (threadIdx.x == 0) {\n        const _type_reduce a = _sdata[0];\n"
                "        %s& %s = _p_%s[0];\n        %s;\n    }\n}\n"
                % (self.preamble, type_defs, rtype, self.name, ", ".join(sig), self.identity, "\n        ".join(body),
                   self.map_expr, self.reduce_expr, self.reduce_expr, oc, p0["name"], p0["name"],
                   self.post_map_expr))
        module = self._build(tuple(key), text)
        wire_args.append({"hex": np.int64(n).tobytes().hex()})
        _call(rt.launch, module, self.name, [1, 1, 1], [256, 1, 1], wire_args, 0, getattr(stream, "handle", 0),
              rt.caller_line())
        return o


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError("cupy.%s is not offered by CUDA Playground; it offers RawKernel, RawModule, "
                         "ElementwiseKernel, ReductionKernel, ndarray with asarray/asnumpy/get, the creation "
                         "functions and cupy.cuda's Event and Stream (README: Your Python scripts)" % name)
