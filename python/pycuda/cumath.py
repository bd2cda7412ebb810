"""pycuda.cumath: element-wise functions of GPUArrays (NumPy on the fetched values, as in pycuda.gpuarray)."""
import numpy as np

from .gpuarray import to_gpu


def _unary(fn):
    def apply(a, stream=None, out=None):
        result = to_gpu(np.asarray(fn(a.get())))
        if out is not None:
            out.set(result.get())
            return out
        return result
    return apply


for _name, _fn in [("sqrt", np.sqrt), ("exp", np.exp), ("log", np.log), ("log10", np.log10), ("sin", np.sin),
                   ("cos", np.cos), ("tan", np.tan), ("arcsin", np.arcsin), ("arccos", np.arccos),
                   ("arctan", np.arctan), ("sinh", np.sinh), ("cosh", np.cosh), ("tanh", np.tanh),
                   ("fabs", np.fabs), ("ceil", np.ceil), ("floor", np.floor)]:
    globals()[_name] = _unary(_fn)
asin, acos, atan = globals()["arcsin"], globals()["arccos"], globals()["arctan"]
