"""pycuda.driver on CUDA Playground: devices, memory, copies, events, streams and argument handlers.

Copies and launches are carried out in order as they are made (a stream orders nothing more); an Event records
the device's time so far (every copy's and launch's own time added), so `time_till` between two events is the time
of the work between them: GPU times on the CUDA backend, the CPU emulator's on the CPU backend (the run says so).
"""
import sys

import numpy as np

from cuda_playground import _runtime as rt
from cuda_playground._wire import connection
from ._driver import CompileError, Error, LaunchError, LogicError, MemoryError, RuntimeError  # noqa: F401

# ---- errors ------------------------------------------------------------------------------------------------

_CUDA_TEXT = {
    "launch_refused": "invalid argument",
    "out_of_bounds": "an illegal memory access was encountered",
    "fault": "unspecified launch failure",
    "hang": "the launch timed out and was terminated",
    "out_of_memory": "out of memory",
    "user_input": "invalid argument",
}


def translate(err, call=None):
    """The PyCUDA exception for a playground error: PyCUDA's text, then what happened in the playground's words."""
    call = call or err.what or "cuda call"
    if err.name == "CUDA_ERROR_NOT_FOUND":
        text, cls = "named symbol not found", LogicError
    else:
        text = _CUDA_TEXT.get(err.kind, err.name or "unknown error")
        cls = {"launch_refused": LogicError, "user_input": LogicError, "out_of_memory": MemoryError,
               "out_of_bounds": LaunchError, "fault": LaunchError, "hang": LaunchError}.get(err.kind, Error)
    message = "%s failed: %s" % (call, text)
    if err.detail:
        message += "\n  cuda-playground: " + err.detail
    if err.hint:
        message += "\n  hint: " + err.hint
    return cls(message)


def _call(fn, *args, **kw):
    try:
        return fn(*args, **kw)
    except rt.DeviceError as e:
        raise translate(e) from None


# ---- the driver, devices, contexts -------------------------------------------------------------------------

def init(flags=0):
    connection()


def get_version():
    return (13, 0, 0)


def get_driver_version():
    return 13000


class device_attribute:  # noqa: N801 - PyCUDA's spelling
    MAX_THREADS_PER_BLOCK = "max_threads_per_block"
    MAX_BLOCK_DIM_X, MAX_BLOCK_DIM_Y, MAX_BLOCK_DIM_Z = "max_block_x", "max_block_y", "max_block_z"
    MAX_GRID_DIM_X, MAX_GRID_DIM_Y, MAX_GRID_DIM_Z = "max_grid_x", "max_grid_y", "max_grid_z"
    MAX_SHARED_MEMORY_PER_BLOCK = "max_shared_per_block"
    WARP_SIZE = "warp_size"
    MULTIPROCESSOR_COUNT = "sm_count"
    COMPUTE_CAPABILITY_MAJOR = "cc_major"
    COMPUTE_CAPABILITY_MINOR = "cc_minor"


class Device:
    def __init__(self, ordinal=0):
        if int(ordinal) != 0:
            raise LogicError("cuDeviceGet failed: invalid device ordinal\n  cuda-playground: the playground "
                             "offers one device, 0")
        self.ordinal = 0

    @staticmethod
    def count():
        return 1

    def _d(self):
        return rt.device()

    def name(self):
        return self._d()["name"]

    def compute_capability(self):
        cc = self._d()["cc"]
        return (int(cc[0]), int(cc[1]))

    def total_memory(self):
        return int(self._d()["total_memory"])

    def pci_bus_id(self):
        return "0000:00:00.0"

    def get_attribute(self, attr):
        d = self._d()
        table = {"max_threads_per_block": d["max_threads_per_block"], "warp_size": d["warp_size"],
                 "sm_count": d["sm_count"], "max_shared_per_block": d["max_shared_per_block"],
                 "cc_major": d["cc"][0], "cc_minor": d["cc"][1]}
        for i, axis in enumerate("xyz"):
            table["max_block_" + axis] = d["max_block"][i]
            table["max_grid_" + axis] = d["max_grid"][i]
        if attr not in table:
            raise LogicError("cuDeviceGetAttribute failed: invalid value\n  cuda-playground: the attributes offered "
                             "are %s" % ", ".join(sorted(k for k in vars(device_attribute) if k.isupper())))
        return int(table[attr])

    def get_attributes(self):
        return {k: self.get_attribute(v) for k, v in vars(device_attribute).items() if k.isupper()}

    def make_context(self, flags=0):
        return Context()

    def __eq__(self, other):
        return isinstance(other, Device)

    def __hash__(self):
        return 0


class Context:
    @staticmethod
    def synchronize():
        connection()

    @staticmethod
    def get_device():
        return Device(0)

    def push(self):
        pass

    @staticmethod
    def pop():
        pass

    def detach(self):
        pass

    @staticmethod
    def get_current():
        return Context()


def mem_get_info():
    total = int(rt.device()["total_memory"])
    used = sum(m.size for m in rt._live.values())
    return (max(total - used, 0), total)


# ---- memory ------------------------------------------------------------------------------------------------

class DeviceAllocation:
    """Device memory from mem_alloc: int() of it is its address, and address arithmetic points into it."""

    def __init__(self, nbytes, name=""):
        self._device_memory = _call(rt.DeviceMemory, nbytes, name)
        self._device_offset = 0

    def __int__(self):
        return self._device_memory.address

    __index__ = __int__

    def __long__(self):
        return self._device_memory.address

    def free(self):
        self._device_memory.free()

    def __repr__(self):
        return "<DeviceAllocation of %d bytes at 0x%x>" % (self._device_memory.size, int(self))

    @property
    def size(self):
        return self._device_memory.size


def mem_alloc(nbytes):
    return DeviceAllocation(nbytes)


def mem_alloc_pitch(width, height, access_size):
    pitch = (int(width) + 255) // 256 * 256
    return DeviceAllocation(pitch * int(height)), pitch


def to_device(array):
    a = np.ascontiguousarray(array)
    d = DeviceAllocation(max(a.nbytes, 1))
    memcpy_htod(d, a)
    return d


def from_device(pointer, shape, dtype, order="C"):
    out = np.empty(shape, dtype, order=order)
    memcpy_dtoh(out, pointer)
    return out


def from_device_like(pointer, like):
    return from_device(pointer, like.shape, like.dtype)


class _PagelockedArray(np.ndarray):
    """A NumPy array PyCUDA would have in page-locked host memory (copies from it are timed as pinned)."""


def _pinned(a):
    return isinstance(a, _PagelockedArray)


def pagelocked_empty(shape, dtype, order="C", mem_flags=0):
    return np.empty(shape, dtype, order=order).view(_PagelockedArray)


def pagelocked_zeros(shape, dtype, order="C", mem_flags=0):
    return np.zeros(shape, dtype, order=order).view(_PagelockedArray)


def pagelocked_empty_like(array, mem_flags=0):
    return pagelocked_empty(array.shape, array.dtype)


def pagelocked_zeros_like(array, mem_flags=0):
    return pagelocked_zeros(array.shape, array.dtype)


def register_host_memory(array, flags=0):
    return array.view(_PagelockedArray)


def _host(array, what):
    if not isinstance(array, np.ndarray):
        try:
            array = np.frombuffer(memoryview(array), np.uint8)
        except TypeError:
            raise TypeError("%s: the host side must be a NumPy array or a buffer, not %s"
                            % (what, type(array).__name__)) from None
    return array


def memcpy_htod(dest, src):
    src = _host(src, "memcpy_htod")
    mem, offset = _call(rt.resolve, dest, "cuMemcpyHtoD")
    if offset + src.nbytes > mem.size:
        raise LogicError("cuMemcpyHtoD failed: invalid argument\n  cuda-playground: %d bytes copied to an "
                         "allocation of %d bytes (at offset %d)" % (src.nbytes, mem.size, offset))
    _call(rt.htod, mem, offset, src, _pinned(src))


def memcpy_dtoh(dest, src):
    dest = _host(dest, "memcpy_dtoh")
    mem, offset = _call(rt.resolve, src, "cuMemcpyDtoH")
    if offset + dest.nbytes > mem.size:
        raise LogicError("cuMemcpyDtoH failed: invalid argument\n  cuda-playground: %d bytes copied from an "
                         "allocation of %d bytes (at offset %d)" % (dest.nbytes, mem.size, offset))
    _call(rt.dtoh, dest, mem, offset, None, _pinned(dest))


def memcpy_dtod(dest, src, size):
    dmem, doff = _call(rt.resolve, dest, "cuMemcpyDtoD")
    smem, soff = _call(rt.resolve, src, "cuMemcpyDtoD")
    _call(rt.dtod, dmem, doff, smem, soff, size)


def memcpy_htod_async(dest, src, stream=None):
    memcpy_htod(dest, src)


def memcpy_dtoh_async(dest, src, stream=None):
    memcpy_dtoh(dest, src)


def memcpy_dtod_async(dest, src, size, stream=None):
    memcpy_dtod(dest, src, size)


def _memset(dest, value, count, dtype):
    mem, offset = _call(rt.resolve, dest, "cuMemset")
    _call(rt.memset, mem, offset, np.array(value, dtype).tobytes(), int(count) * np.dtype(dtype).itemsize)


def memset_d8(dest, data, count):
    _memset(dest, data, count, np.uint8)


def memset_d16(dest, data, count):
    _memset(dest, data, count, np.uint16)


def memset_d32(dest, data, count):
    _memset(dest, data, count, np.uint32)


memset_d8_async = memset_d8
memset_d16_async = memset_d16
memset_d32_async = memset_d32


# ---- events and streams --------------------------------------------------------------------------------------

_streams = [0]


class Stream:
    def __init__(self, flags=0):
        _streams[0] += 1
        self.handle = _streams[0]

    def synchronize(self):
        pass

    def is_done(self):
        return True

    def wait_for_event(self, event):
        pass


class Event:
    def __init__(self, flags=0):
        self._at = None

    def record(self, stream=None):
        self._at = rt.clock_ms()
        return self

    def synchronize(self):
        return self

    def query(self):
        return True

    def time_till(self, end):
        if self._at is None or end._at is None:
            raise LogicError("cuEventElapsedTime failed: invalid resource handle\n  cuda-playground: record both "
                             "events before asking the time between them")
        return end._at - self._at

    def time_since(self, start):
        return start.time_till(self)


# ---- argument handlers -------------------------------------------------------------------------------------

class ArgumentHandler:
    def __init__(self, array):
        self.array = array
        self.get_device_alloc = None

    def pre_call(self, stream):
        pass


class In(ArgumentHandler):
    copy_in, copy_out = True, False


class Out(ArgumentHandler):
    copy_in, copy_out = False, True


class InOut(ArgumentHandler):
    copy_in, copy_out = True, True


# ---- functions -------------------------------------------------------------------------------------------

_STRUCT_CODES = {"P": np.uint64, "i": np.int32, "I": np.uint32, "l": np.int64, "L": np.uint64, "q": np.int64,
                 "Q": np.uint64, "f": np.float32, "d": np.float64, "h": np.int16, "H": np.uint16, "b": np.int8,
                 "B": np.uint8, "c": np.int8, "?": np.bool_}


class Function:
    """A kernel of a SourceModule (get_function)."""

    def __init__(self, module, name):
        self.module = module
        self.name = name
        info = _call_compile(module, name)
        self._params = info.get("params", [])
        self.num_regs = max(int(info.get("registers", 0)), 0)
        self.shared_size_bytes = max(int(info.get("shared_bytes", 0)), 0)
        self.local_size_bytes = max(int(info.get("local_bytes", 0)), 0)
        limit = int(info.get("max_threads_per_block", -1))
        self.max_threads_per_block = limit if limit > 0 else int(rt.device()["max_threads_per_block"])
        self._prepared = None
        self._block = None
        self._shared = 0

    def get_attribute(self, attr):
        return {"MAX_THREADS_PER_BLOCK": self.max_threads_per_block, "NUM_REGS": self.num_regs,
                "SHARED_SIZE_BYTES": self.shared_size_bytes, "LOCAL_SIZE_BYTES": self.local_size_bytes}.get(
            getattr(attr, "name", attr), 0)

    def _pack(self, args):
        wire, after, temps = [], [], []
        for i, arg in enumerate(args):
            param = self._params[i] if i < len(self._params) else {}
            if isinstance(arg, ArgumentHandler):
                a = arg.array
                if not isinstance(a, np.ndarray):
                    raise TypeError("invalid type on parameter #%d (0-based): In/Out/InOut need a NumPy array" % i)
                if not a.flags.c_contiguous:
                    raise TypeError("invalid type on parameter #%d (0-based): the array is not contiguous "
                                    "(cuda-playground: pass numpy.ascontiguousarray(...))" % i)
                if param.get("pointer"):
                    rt.check_array_param(self.name, i, param, a.dtype)
                mem = _call(rt.DeviceMemory, max(a.nbytes, 1), param.get("name", "arg%d" % i), a.itemsize,
                            a.shape, a.dtype)
                temps.append(mem)
                if arg.copy_in:
                    _call(rt.htod, mem, 0, a, _pinned(a))
                if arg.copy_out:
                    after.append((a, mem))
                wire.append(rt.pointer_arg(mem))
            elif getattr(arg, "_device_memory", None) is not None:
                if param.get("pointer") and getattr(arg, "dtype", None) is not None:
                    rt.check_array_param(self.name, i, param, arg.dtype)
                wire.append(rt.pointer_arg(arg._device_memory, getattr(arg, "_device_offset", 0)))
            elif isinstance(arg, np.generic):
                wire.append(rt.scalar_arg(self.name, i, self._params, arg))
            elif isinstance(arg, np.ndarray):
                wire.append({"hex": np.ascontiguousarray(arg).tobytes().hex()})  # passed by value, as PyCUDA does
            elif isinstance(arg, (bytes, bytearray)):
                wire.append({"hex": bytes(arg).hex()})
            else:
                raise TypeError("invalid type on parameter #%d (0-based)\n  cuda-playground: a %s; PyCUDA passes "
                                "sized NumPy scalars (numpy.int32(n), numpy.float32(x)), device memory and "
                                "In/Out/InOut arrays" % (i, type(arg).__name__))
        return wire, after, temps

    def _launch(self, args, grid, block, shared, stream):
        if block is None:
            raise ValueError("must specify block size")
        grid3 = _call(rt.dims, grid, "grid", 1)
        block3 = _call(rt.dims, block, "block", 1)
        wire, after, temps = self._pack(args)
        try:
            try:
                ms = rt.launch(self.module._module, self.name, grid3, block3, wire, shared or 0,
                               getattr(stream, "handle", 0), rt.caller_line())
            except rt.DeviceError as e:
                # PyCUDA sets the block's shape before it launches, and that call is what refuses too large a block.
                d = rt.device()
                too_large = block3[0] * block3[1] * block3[2] > d["max_threads_per_block"] or any(
                    b > m for b, m in zip(block3, d["max_block"]))
                raise translate(e, "cuFuncSetBlockShape" if e.kind == "launch_refused" and too_large
                                else "cuLaunchKernel") from None
            for array, mem in after:
                _call(rt.dtoh, array, mem, 0, None, _pinned(array))
        finally:
            for mem in temps:
                mem.free()
        return ms

    def __call__(self, *args, **kwargs):
        grid = kwargs.pop("grid", (1, 1))
        block = kwargs.pop("block", None)
        shared = kwargs.pop("shared", 0)
        stream = kwargs.pop("stream", None)
        time_kernel = kwargs.pop("time_kernel", False)
        kwargs.pop("texrefs", None)
        if kwargs:
            raise TypeError("unknown keyword arguments: %s" % ", ".join(kwargs))
        ms = self._launch(args, grid, block, shared, stream)
        if time_kernel:
            return ms / 1000.0
        return None

    # prepared calls: the argument types given once as a struct format ("PPi") or a list of NumPy dtypes
    def prepare(self, arg_types, block=None, shared=None, texrefs=None):
        if isinstance(arg_types, str):
            codes = [c for c in arg_types if c not in "@=<>! "]
            try:
                self._prepared = [_STRUCT_CODES[c] for c in codes]
            except KeyError as e:
                raise LogicError("prepare: the type code %s is not one PyCUDA's struct formats name" % e) from None
        else:
            self._prepared = [np.dtype(t).type if not isinstance(t, str) else _STRUCT_CODES[t] for t in arg_types]
        self._block = block
        self._shared = shared or 0
        return self

    def _prepared_args(self, args):
        if self._prepared is None:
            raise LogicError("prepared_call before prepare()")
        if len(args) != len(self._prepared):
            raise TypeError("prepared_call: %d arguments for a function prepared with %d" %
                            (len(args), len(self._prepared)))
        out = []
        for a, t in zip(args, self._prepared):
            if getattr(a, "_device_memory", None) is not None or isinstance(a, ArgumentHandler):
                out.append(a)
            else:
                out.append(t(int(a)) if t == np.uint64 else t(a))
        return out

    def prepared_call(self, grid, block, *args, shared_size=0):
        self._launch(self._prepared_args(args), grid, block, shared_size or self._shared, None)

    def prepared_timed_call(self, grid, block, *args, shared_size=0):
        ms = self._launch(self._prepared_args(args), grid, block, shared_size or self._shared, None)
        return lambda: ms / 1000.0

    def prepared_async_call(self, grid, block, stream, *args, shared_size=0):
        self._launch(self._prepared_args(args), grid, block, shared_size or self._shared, stream)


def _call_compile(module, name):
    try:
        return module._module.compile(name)
    except rt.DeviceError as e:
        raise translate(e, "cuModuleGetFunction") from None
    except rt.CompileFailed as e:
        raise CompileError(e.text, stderr=e.log) from None


class Module:
    """What SourceModule is built on (pycuda.driver.module_from_buffer is not offered: there is no cubin)."""


def module_from_buffer(*args, **kwargs):
    raise LogicError("module_from_buffer: CUDA Playground compiles CUDA C sources only (SourceModule); a ready-made "
                     "cubin or PTX cannot be loaded")


def module_from_file(*args, **kwargs):
    raise LogicError("module_from_file: CUDA Playground compiles CUDA C sources only (SourceModule)")


def _unsupported(name):
    def refuse(*args, **kwargs):
        raise LogicError("pycuda.driver.%s is not offered by CUDA Playground; it offers the parts courses use: "
                         "In/Out/InOut, mem_alloc, memcpy_*, pagelocked_*, Event, Stream, Device, Context, "
                         "SourceModule (README: Your Python scripts)" % name)
    return refuse


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _unsupported(name)
