"""What pycuda and cupy share: device memory, modules, launches and errors, over the playground's connection.

Device memory lives in the playground's backend; the script holds handles. A pointer the script computes
(``int(d_a) + 4``) is a number in an address range the playground hands out (``DeviceMemory.address``), so a
launch argument that falls inside a live allocation is passed as that allocation plus the offset.
"""
import os
import re
import sys

import numpy as np

from ._wire import connection

# The addresses handed out: far from any size or index a script passes, each allocation 256-byte aligned with a
# gap after it (a pointer one past the end still names its own allocation).
_ADDRESS_BASE = 0x7F0000000000
_next_address = _ADDRESS_BASE
_live = {}  # address -> DeviceMemory


class DeviceError(Exception):
    """A request the playground refused or that failed; `kind` is the playground's error kind."""

    def __init__(self, error, what=""):
        self.kind = error.get("kind", "unknown")
        self.name = error.get("name", "")
        self.detail = error.get("message", "")
        self.hint = error.get("hint", "")
        self.line = error.get("line", 0)
        self.what = what
        super().__init__(self.detail)


def _check(answer, what):
    if not answer.get("ok"):
        raise DeviceError(answer.get("error", {"kind": "internal", "message": "no answer"}), what)
    return answer


class DeviceMemory:
    """One allocation on the device."""

    def __init__(self, nbytes, name="", element_bytes=1, shape=None, dtype=None):
        global _next_address
        nbytes = int(nbytes)
        if nbytes <= 0:
            raise DeviceError({"kind": "user_input", "name": "CUDA_ERROR_INVALID_VALUE",
                               "message": "an allocation of %d bytes" % nbytes,
                               "hint": "allocate at least one byte"}, "cuMemAlloc")
        request = {"op": "alloc", "bytes": nbytes, "name": name, "element_bytes": int(element_bytes)}
        request.update(layout(shape, dtype, nbytes))
        answer, _ = connection().call(request)
        _check(answer, "cuMemAlloc")
        self.buffer = answer["buffer"]
        self.size = nbytes
        self.address = _next_address
        _next_address += (nbytes + 255) // 256 * 256 + 65536
        _live[self.address] = self
        self.freed = False

    def free(self):
        if self.freed:
            return
        self.freed = True
        _live.pop(self.address, None)
        try:
            connection().call({"op": "free", "buffer": self.buffer})
        except Exception:  # the playground already went away (interpreter shutdown)
            pass

    def __del__(self):
        try:
            self.free()
        except Exception:
            pass


def find_pointer(address):
    """(DeviceMemory, offset) for an address inside (or one past) a live allocation, else None."""
    address = int(address)
    if address < _ADDRESS_BASE or address >= _next_address:
        return None
    for base, mem in _live.items():
        if base <= address <= base + mem.size:
            return mem, address - base
    return None


def resolve(pointer, what):
    """(DeviceMemory or Symbol, offset) of what a copy names: an allocation, an object with one, a module's
    variable (get_global), or an address."""
    if isinstance(pointer, Symbol):
        return pointer, 0
    if isinstance(getattr(pointer, "_symbol", None), Symbol):
        return pointer._symbol, 0
    mem = getattr(pointer, "_device_memory", None)
    if mem is not None:
        return mem, getattr(pointer, "_device_offset", 0)
    if isinstance(pointer, (int, np.integer)):
        for sym in _symbols:
            if sym.address <= int(pointer) < sym.address + sym.size:
                return sym, int(pointer) - sym.address
    found = find_pointer(pointer) if isinstance(pointer, (int, np.integer)) else None
    if found is None:
        raise DeviceError({"kind": "user_input", "name": "CUDA_ERROR_INVALID_VALUE",
                           "message": "%s: %r is not device memory this script allocated" % (what, pointer),
                           "hint": "pass an allocation from mem_alloc (or a pointer into one)"}, what)
    return found


def layout(shape, dtype, nbytes):
    """What the allocation holds as NumPy sees it (the window shows an (h, w, 3) uint8 array as a picture): only
    when the shape fills it exactly."""
    if shape is None or dtype is None:
        return {}
    dtype = np.dtype(dtype)
    shape = [int(n) for n in (shape if isinstance(shape, (tuple, list)) else (shape,))]
    if int(np.prod(shape, dtype=np.int64)) * dtype.itemsize != nbytes or dtype.kind not in "biuf":
        return {}
    return {"dtype": dtype.name, "shape": shape}


def _bytes_of(array):
    a = np.ascontiguousarray(array)
    return a.view(np.uint8).reshape(-1) if a.size else np.zeros(0, np.uint8)


def htod(mem, offset, host, pinned=False):
    data = _bytes_of(host)
    if isinstance(mem, Symbol):
        return mem.write(offset, data)
    if data.size:
        request = {"op": "htod", "buffer": mem.buffer, "offset": int(offset), "pinned": pinned}
        if int(offset) == 0 and isinstance(host, np.ndarray):
            request.update(layout(host.shape, host.dtype, mem.size))
        _check(connection().call(request, data)[0], "cuMemcpyHtoD")


def dtoh(host, mem, offset, nbytes=None, pinned=False):
    if not host.flags.c_contiguous:
        raise DeviceError({"kind": "user_input", "name": "CUDA_ERROR_INVALID_VALUE",
                           "message": "the host array of a device-to-host copy is not contiguous",
                           "hint": "copy into numpy.empty_like(...) and assign from it"}, "cuMemcpyDtoH")
    nbytes = host.nbytes if nbytes is None else int(nbytes)
    if not nbytes:
        return
    if isinstance(mem, Symbol):
        host.reshape(-1).view(np.uint8)[:nbytes] = mem.read(offset, nbytes)
        return
    answer, body = connection().call({"op": "dtoh", "buffer": mem.buffer, "offset": int(offset),
                                      "bytes": nbytes, "pinned": pinned})
    _check(answer, "cuMemcpyDtoH")
    host.reshape(-1).view(np.uint8)[:nbytes] = np.frombuffer(body, np.uint8)


def dtod(dst, dst_offset, src, src_offset, nbytes):
    _check(connection().call({"op": "dtod", "dst": dst.buffer, "dst_offset": int(dst_offset), "src": src.buffer,
                              "src_offset": int(src_offset), "bytes": int(nbytes)})[0], "cuMemcpyDtoD")


def memset(mem, offset, value_bytes, nbytes):
    _check(connection().call({"op": "memset", "buffer": mem.buffer, "offset": int(offset), "bytes": int(nbytes),
                              "pattern": bytes(value_bytes).hex()})[0], "cuMemset")


# ---- where things are in the script ----------------------------------------------------------------------

_script_text = None


def script_path():
    return connection().script_path


def _script():
    global _script_text
    if _script_text is None:
        try:
            with open(script_path(), encoding="utf-8", errors="replace") as f:
                _script_text = f.read()
        except OSError:
            _script_text = ""
    return _script_text


def caller_line():
    """The line of the script that made the current call (the innermost frame in the script's own file)."""
    path = script_path()
    frame = sys._getframe(1)
    while frame is not None:
        if os.path.abspath(frame.f_code.co_filename) == path:
            return frame.f_lineno
        frame = frame.f_back
    return 0


def source_line(source):
    """The script line the kernel source's first line is on, or 0 when the source is not in the script as
    written (built by formatting, read from a file)."""
    text = _script()
    if not source.strip() or not text:
        return 0
    at = text.find(source)
    if at < 0 or text.find(source, at + 1) >= 0:
        return 0
    return text.count("\n", 0, at) + 1


_GLOBAL = re.compile(r"__global__\s+(?:[\w:<>,\s\*&]*?\s)?(\w+)\s*\(")


def kernel_names(source):
    cleaned = re.sub(r"//[^\n]*|/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), source, flags=re.S)
    return _GLOBAL.findall(cleaned)


class Module:
    """A kernel source compiled on the playground's backend: each kernel is compiled when first asked for."""

    def __init__(self, source, options=(), include_dirs=(), extern_c=False, label=None, line=None):
        self.call_line = caller_line()
        self.options = [str(o) for o in options or ()]
        self.include_dirs = [str(d) for d in include_dirs or ()]
        start = source_line(source) if line is None else line
        path = script_path()
        if start > 0:
            self.path = path
        else:
            self.path = "%s (%s at line %d, lines of its source)" % (
                path, label or "the kernel source", self.call_line)
        # Padded so that the kernel's lines are the script's: every message and fault names the script's line.
        # PyCUDA wraps the source in extern "C" { } (unless no_extern_c): the opening goes on a line of its own
        # before the source, or on the source's empty first line (a triple-quoted string's), keeping the lines.
        pad = max(start - 1, 0)
        opening = 'extern "C" {' if extern_c else ""
        if not extern_c:
            text = "\n" * pad + source
        elif source.startswith("\n"):
            text = "\n" * pad + opening + source
        elif pad >= 1:
            text = "\n" * (pad - 1) + opening + "\n" + source
        else:
            text = opening + "\n" + source
        if extern_c:
            text += "\n}\n"
        self.source = text
        self.written = text  # the source as the script wrote it, before any variable's values were filled in
        self.start = start
        self.functions = {}
        self.symbols = {}
        self.symbols_changed = False

    def symbol(self, name):
        if name not in self.symbols:
            self.symbols[name] = Symbol(self, name)
        return self.symbols[name]

    def refresh(self):
        """After the script copied to a variable: the source with every variable's values, compiled afresh."""
        if not self.symbols_changed:
            return
        text = self.written
        for sym in self.symbols.values():
            text = sym.initialised(text)
        self.source = text
        self.symbols_changed = False
        for name in list(self.functions):
            del self.functions[name]
            self.compile(name)

    def compile(self, name, what="cuModuleGetFunction"):
        if name in self.functions:
            return self.functions[name]
        answer, _ = connection().call({"op": "compile", "source": self.source, "kernel": name, "path": self.path,
                                       "options": self.options, "include_dirs": self.include_dirs,
                                       "call_line": self.call_line})
        if answer.get("ok"):
            self.functions[name] = answer
            return answer
        if "diagnostics" not in answer:
            raise DeviceError(answer.get("error", {}), what)
        raise CompileFailed(self, answer)

    def first_kernel(self):
        names = kernel_names(self.source)
        return names[0] if names else None


_DECL = r"(__constant__|__device__)\s+((?:const\s+|unsigned\s+|signed\s+|long\s+|short\s+)*\w+)\s+%s\s*((?:\[\s*\d+\s*\])*)\s*;"
_symbols = []


def _literal(value, ctype):
    if ctype in ("float", "double"):
        v = float(value)
        suffix = "f" if ctype == "float" else ""
        if v != v:
            return "__builtin_nan%s(\"\")" % suffix
        if v in (float("inf"), float("-inf")):
            return ("-" if v < 0 else "") + "__builtin_huge_val%s()" % suffix
        return v.hex() + suffix
    if ctype == "bool":
        return "true" if value else "false"
    return str(int(value)) + ("ull" if ctype.startswith("unsigned") else "ll")


class Symbol:
    """A module's __constant__ or __device__ variable (get_global). Its bytes are kept here and compiled into the
    module as the variable's initial value before the module's next launch, so a kernel sees what the script
    copied to it."""

    def __init__(self, module, name):
        global _next_address
        m = re.search(_DECL % re.escape(name), module.source)
        if not m:
            raise DeviceError({"kind": "user_input", "name": "CUDA_ERROR_NOT_FOUND",
                               "message": "the module has no __constant__ or __device__ variable `%s` declared "
                                          "as `__constant__ TYPE %s[N];`" % (name, name)}, "cuModuleGetGlobal")
        self.module, self.name, self.space = module, name, m.group(1)
        self.ctype = " ".join(m.group(2).replace("const", "").split())
        if self.ctype not in C_TYPES:
            raise DeviceError({"kind": "user_input", "name": "CUDA_ERROR_NOT_SUPPORTED",
                               "message": "`%s` is a %s: the playground fills variables of plain number types "
                                          "only" % (name, self.ctype)}, "cuModuleGetGlobal")
        self.dtype = np.dtype(C_TYPES[self.ctype])
        count = 1
        for d in re.findall(r"\d+", m.group(3)):
            count *= int(d)
        self.count = count
        self.size = count * self.dtype.itemsize
        self.declaration = m
        self.bytes = np.zeros(self.size, np.uint8)
        self.address = _next_address
        _next_address += (self.size + 255) // 256 * 256 + 65536
        _symbols.append(self)

    def write(self, offset, data):
        if offset + data.size > self.size:
            raise DeviceError({"kind": "user_input", "name": "CUDA_ERROR_INVALID_VALUE",
                               "message": "%d bytes copied to `%s` (%d bytes) at offset %d"
                                          % (data.size, self.name, self.size, offset)}, "cuMemcpyHtoD")
        self.bytes[offset:offset + data.size] = data
        self.module.symbols_changed = True

    def read(self, offset, nbytes):
        if self.space == "__device__":
            raise DeviceError({"kind": "unsupported", "name": "CUDA_ERROR_NOT_SUPPORTED",
                               "message": "reading the __device__ variable `%s` back is not offered by the "
                                          "playground (a kernel's writes to it are not seen here); write the "
                                          "result to an allocation passed as an argument" % self.name}, "cuMemcpyDtoH")
        if offset + nbytes > self.size:
            raise DeviceError({"kind": "user_input", "name": "CUDA_ERROR_INVALID_VALUE",
                               "message": "%d bytes copied from `%s` (%d bytes)" % (nbytes, self.name, self.size)},
                              "cuMemcpyDtoH")
        return self.bytes[offset:offset + nbytes]

    def initialised(self, source):
        values = self.bytes.view(self.dtype)
        init = ", ".join(_literal(v, self.ctype) for v in values)
        m = re.search(_DECL % re.escape(self.name), source)
        if self.declaration.group(3):
            text = source[:m.end() - 1] + " = {" + init + "}" + source[m.end() - 1:]
        else:
            text = source[:m.end() - 1] + " = " + init + source[m.end() - 1:]
        return text


class CompileFailed(Exception):
    def __init__(self, module, answer):
        self.diagnostics = answer.get("diagnostics", [])
        lines = []
        for d in self.diagnostics:
            where = "%s:%d:%d" % (os.path.basename(d.get("file") or module.path), d.get("line", 0), d.get("column", 0))
            lines.append("%s: %s: %s" % (where, d.get("severity", "error"), d.get("message", "")))
        if not lines and answer.get("error"):
            lines.append(answer["error"].get("message", ""))
        if not lines:
            lines.append(answer.get("log", "").strip())
        where = ("line %d of %s" % (module.start, os.path.basename(module.path))) if module.start else module.path
        self.text = "compilation of the kernel source at %s failed\n%s" % (where, "\n".join(lines))
        self.log = answer.get("log", "")
        super().__init__(self.text)


# ---- launches --------------------------------------------------------------------------------------------

C_TYPES = {
    "float": np.float32, "double": np.float64, "int": np.int32, "unsigned int": np.uint32, "unsigned": np.uint32,
    "uint": np.uint32, "int32_t": np.int32, "uint32_t": np.uint32, "long long": np.int64, "int64_t": np.int64,
    "long": np.int64, "unsigned long": np.uint64, "size_t": np.uint64, "unsigned long long": np.uint64,
    "uint64_t": np.uint64, "short": np.int16, "unsigned short": np.uint16, "char": np.int8, "signed char": np.int8,
    "unsigned char": np.uint8, "uchar": np.uint8, "uint8_t": np.uint8, "int8_t": np.int8, "bool": np.bool_,
    "__half": np.float16, "half": np.float16,
}


def _warn(text):
    sys.stderr.write("cuda-playground: " + text + "\n")


def check_array_param(kernel, index, param, dtype):
    """Says when an array's element type is not the one the kernel's pointer parameter reads."""
    want = C_TYPES.get(param.get("base", ""))
    if want is None or np.dtype(want) == np.dtype(dtype):
        return
    _warn("argument %d (`%s`) of `%s` is %s data (%d-byte elements) for `%s %s` (%d-byte %s): the kernel reads "
          "its bytes as %s, so the values will be wrong; convert it with .astype(numpy.%s)"
          % (index + 1, param["name"], kernel, np.dtype(dtype).name, np.dtype(dtype).itemsize, param["type"],
             param["name"], np.dtype(want).itemsize, param["base"], param["base"], np.dtype(want).name))


def check_scalar_param(kernel, index, param, value):
    want = C_TYPES.get(param.get("base", ""))
    if want is None or param.get("pointer") or np.dtype(want) == value.dtype:
        return
    _warn("argument %d (`%s`) of `%s` is a numpy.%s (%d bytes) for `%s %s` (%d bytes): pass numpy.%s(...)"
          % (index + 1, param["name"], kernel, value.dtype.name, value.dtype.itemsize, param["type"], param["name"],
             np.dtype(want).itemsize, np.dtype(want).name))


def scalar_arg(kernel, index, params, value):
    """The wire form of a scalar argument; an 8-byte integer inside an allocation is passed as a pointer."""
    param = params[index] if index < len(params) else {}
    if value.dtype.kind in "iu" and value.dtype.itemsize == 8:
        found = find_pointer(int(value))
        if found is not None and (param.get("pointer", True)):
            mem, offset = found
            return {"buffer": mem.buffer, "offset": offset}
    if param:
        check_scalar_param(kernel, index, param, value)
    return {"hex": value.tobytes().hex()}


def pointer_arg(mem, offset=0):
    return {"buffer": mem.buffer, "offset": int(offset)}


def dims(value, what, fill):
    try:
        t = tuple(int(v) for v in value)
    except TypeError:
        t = (int(value),)
    if not 1 <= len(t) <= 3:
        raise DeviceError({"kind": "user_input", "name": "CUDA_ERROR_INVALID_VALUE",
                           "message": "%s must have 1 to 3 dimensions, got %r" % (what, value)}, "cuLaunchKernel")
    if any(v < 0 for v in t):
        raise DeviceError({"kind": "user_input", "name": "CUDA_ERROR_INVALID_VALUE",
                           "message": "%s %r has a negative dimension" % (what, value)}, "cuLaunchKernel")
    return list(t) + [fill] * (3 - len(t))


def launch(module, name, grid, block, args, shared=0, stream=0, line=0):
    """Runs one launch; returns its time in ms. Device printf goes to the script's stdout."""
    module.refresh()
    info = module.functions.get(name) or module.compile(name)
    answer, _ = connection().call({"op": "launch", "module": info["module"], "grid": grid, "block": block,
                                   "shared": int(shared), "args": args, "stream": int(stream), "line": line})
    if answer.get("printf"):
        sys.stdout.write(answer["printf"])
        sys.stdout.flush()
    _check(answer, "cuLaunchKernel")
    return float(answer.get("ms", 0.0))


def device():
    return connection().device


def clock_ms():
    return connection().clock_ms
