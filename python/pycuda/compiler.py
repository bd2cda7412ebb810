"""pycuda.compiler.SourceModule on CUDA Playground: the source is compiled by the playground's backend (NVRTC for
a GPU, the host compiler for the CPU emulator), each kernel when get_function first asks for it; compile errors
name the script's lines."""
import numpy as np

from cuda_playground import _runtime as rt
from . import driver as _drv
from ._driver import CompileError


class SourceModule:
    def __init__(self, source, nvcc="nvcc", options=None, keep=False, no_extern_c=False, arch=None, code=None,
                 cache_dir=None, include_dirs=()):
        opts = list(options or ())
        if arch:
            opts.append("-arch=" + arch)
        self.source = source
        self._module = rt.Module(source, options=opts, include_dirs=include_dirs, extern_c=not no_extern_c,
                                 label="SourceModule")
        # As PyCUDA does, a source that does not compile fails here, at SourceModule().
        first = self._module.first_kernel()
        if first is None:
            raise CompileError("SourceModule: the source has no __global__ function to run")
        self._functions = {}
        self._functions[first] = _drv.Function(self, first)

    def get_function(self, name):
        if name not in self._functions:
            self._functions[name] = _drv.Function(self, name)
        return self._functions[name]

    def get_global(self, name):
        """(pointer, size in bytes) of a __constant__ or __device__ variable; memcpy_htod to the pointer sets it."""
        sym = _drv._call(self._module.symbol, name)
        return _GlobalPointer(sym), sym.size

    def get_texref(self, name):
        raise _drv.LogicError("SourceModule.get_texref: texture references are not offered by CUDA Playground")


class _GlobalPointer:
    """What get_global returns: int() is the variable's address; copies to and from it reach the variable."""

    def __init__(self, sym):
        self._symbol = sym

    def __int__(self):
        return self._symbol.address

    __index__ = __int__


class DynamicSourceModule(SourceModule):
    pass


def compile(source, nvcc="nvcc", options=None, keep=False, no_extern_c=False, arch=None, code=None,
            cache_dir=None, include_dirs=(), target="cubin"):
    raise _drv.LogicError("pycuda.compiler.compile: CUDA Playground gives no cubin; use SourceModule")
