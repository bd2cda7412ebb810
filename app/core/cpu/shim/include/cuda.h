// Stub of CUDA's <cuda.h> for the CPU backend: everything kernels need comes from the force-included shim.
#pragma once
