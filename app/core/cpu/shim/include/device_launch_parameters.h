// Stub of CUDA's <device_launch_parameters.h> for the CPU backend: everything kernels need comes from the force-included shim.
#pragma once
