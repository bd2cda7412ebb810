// Shared between the histogram kernel and (in the original sample) its host code: the bin count and
// how a pixel value maps to a bin.
#pragma once

#define BIN_COUNT 256

__device__ inline unsigned int bin_of(unsigned char value) { return value; }
