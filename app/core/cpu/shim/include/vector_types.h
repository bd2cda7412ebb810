// Stub of CUDA's <vector_types.h> for the CPU backend: everything kernels need comes from the force-included shim.
#pragma once
