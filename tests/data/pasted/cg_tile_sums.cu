/*@playground
title: Tile sums with cooperative groups (pasted)
category: Pasted samples
about: Each block is cut into tiles of 32 threads (static tiled_partition, with block_tile_memory as the
  samples declare it) and tiles of 8 (dynamic tiled_partition); each tile reduces with shuffles and
  cg::reduce, and the tile's leader (meta_group_rank names the tile) writes the sums.
param n: int = 5003
buffer in: int[n] in random(seed=41, min=-50, max=50)
buffer sums32: int[ceil(n / 32)] out zeros
buffer sums8: int[ceil(n / 8)] out zeros
block: 128
grid: ceil(n / block.x)
problem: n
reference: tile_sums_reference
tolerance: 0
*/
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void tileSums(const int* in, int* sums32, int* sums8, int n)
{
    __shared__ cg::block_tile_memory<128> scratch;
    cg::thread_block block = cg::this_thread_block(scratch);
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    cg::thread_group tile8 = cg::tiled_partition(block, 8);

    unsigned int i = block.group_index().x * block.size() + block.thread_rank();
    int v = i < (unsigned)n ? in[i] : 0;

    // A shuffle loop on the 32-thread tile...
    int s = v;
    for (int offset = warp.size() / 2; offset > 0; offset /= 2) s += warp.shfl_down(s, offset);
    s = warp.shfl(s, 0);
    unsigned int tile32 = block.group_index().x * (block.size() / 32) + warp.meta_group_rank();
    if (warp.thread_rank() == 0 && tile32 * 32 < (unsigned)n) sums32[tile32] = s;

    // ...and cg::reduce on the 8-thread tiles, made static for it.
    cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(block);
    int s8 = cg::reduce(t8, v, cg::plus<int>());
    cg::sync(block);
    unsigned int tile = i / tile8.size();
    if (tile8.thread_rank() == 0 && i < (unsigned)n) sums8[tile] = s8;
}

#ifdef PLAYGROUND_REFERENCE
static void tile_sums_reference(const int* in, int* sums32, int* sums8, int n)
{
    for (int t = 0; t * 32 < n; ++t) {
        int s = 0;
        for (int k = t * 32; k < n && k < t * 32 + 32; ++k) s += in[k];
        sums32[t] = s;
    }
    for (int t = 0; t * 8 < n; ++t) {
        int s = 0;
        for (int k = t * 8; k < n && k < t * 8 + 8; ++k) s += in[k];
        sums8[t] = s;
    }
}
#endif
