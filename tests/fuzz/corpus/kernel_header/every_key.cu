/*@playground
title: Every key
category: Fuzz seeds
tags: a, b, "c, d"
about: A header that uses every key and option once,
  continued on an indented line.
# a comment line
param n: int = 1000 range 1..1e6 step 2
param a: float = 2.0 range -10..10 step 0.5
param mode: int = 1 enum none=0 clamp=1
param w: uint = img.width
param h: double = img.height
buffer img: uchar4[w * h] in image("coffee.png")
buffer x: float[n] in random(seed=42, min=-1, max=1)
buffer y: float[n] inout ramp(start=0, step=0.5)
buffer z: int[n] out constant(7)
block: 16 x 8 x 1
grid: ceil(w / block.x) x ceil(h / block.y)
shared: block.x * block.y * 4
problem: w x h
view z: image(n, 1) colormap=magma range=0..1
view y: plot range=-1..1
view x: table
reference: vector_add
tolerance: 1e-5
traffic: 3 * n * 4
*/
extern "C" __global__ void __launch_bounds__(128) k(const uchar4* __restrict__ img, float* x, float* y, int* z,
                                                    int n, float a, int mode, unsigned int w, double h) {
    // "*/ inside a comment" and 'c' and R"(raw)"
    const char* s = "__global__ void fake(int q)";
}
