/*@playground
title: float64 data given to a float32 kernel (buggy on purpose)
category: Common mistakes
tags: types, float, double, reinterpretation, buggy on purpose
about: The host filled its array with doubles (8 bytes each), but the kernel was written for floats
  (4 bytes each) and reads the same bytes as floats: the cast below does what cudaMemcpy of a double
  array into a float* buffer does. Each double becomes two floats: its low half (usually a tiny
  number close to 0) and its high half (a number with the double's sign and a wildly wrong value),
  and the second half of the array is never read at all. Nothing crashes; the results are simply
  wrong, which the check shows. The fix: the same element type on both sides (here `const double*`
  and x[i] directly, or convert on the host). Try: remove the cast and index the doubles directly.
param n: int = 1000 range 1..1000000
buffer x: double[n] in random(seed=4, min=1, max=2)
buffer y: float[n] out zeros
block: 256
grid: ceil(n / block.x)
problem: n
view y: plot
reference: doubled_as_float
expect: mismatch
learn: the bytes are not converted: a double array read as floats gives garbage
  values; use the same element type on both sides
tolerance: 1e-5
*/
extern "C" __global__ void double_data_float_kernel(const double* x, float* y, int n)
{
    const float* xf = (const float*)x;  // the bug: the bytes are doubles
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = 2.0f * xf[i];
    }
}

#ifdef PLAYGROUND_REFERENCE
// What the kernel was meant to compute: twice each value, in single precision.
static void doubled_as_float(const double* x, float* y, int n)
{
    for (int i = 0; i < n; ++i) y[i] = 2.0f * float(x[i]);
}
#endif
