/*@playground
title Missing colon
titel: Typo key
param : int = 1
param n int = 1
param n: integer = 10 range 5..1
param m: int = undefined_name * 2
param m: int = 3
buffer a: float[n out zeros
buffer b: floot[n] sideways
buffer c: float[n] in random(seed=-1, min=2, max=1)
block: 16 x x 16
grid: ceil(n / block.w) x 1 x 1 x 1
shared:
problem: n x
view a: image(n) colormap=rainbow
view q: plot range=5..1
view a: picture
reference: no_such_reference
tolerance: lots
tolerance: 1
*/
template <typename T> __global__ void k(T* a, int n) {}
__global__ void second(float* a) {}
