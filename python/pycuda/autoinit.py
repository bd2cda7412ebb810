"""import pycuda.autoinit: the playground's device, ready (`device`, `context`)."""
import pycuda.driver as _cuda

_cuda.init()
device = _cuda.Device(0)
context = device.make_context()
