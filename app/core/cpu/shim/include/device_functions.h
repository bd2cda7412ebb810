// Stub of CUDA's <device_functions.h> for the CPU backend: everything kernels need comes from the force-included shim.
#pragma once
