"""CUDA Playground's Python side: the `pycuda` and `cupy` modules it provides to scripts run with
``cuda-playground run script.py`` (or in a virtual environment where this package is installed), so that an
unmodified PyCUDA or CuPy script runs its kernels on the playground's backends: the CPU emulator, with every bounds
and barrier check, or a GPU. The README's "Your Python scripts" lists what is supported."""

__version__ = "0.1.0"
