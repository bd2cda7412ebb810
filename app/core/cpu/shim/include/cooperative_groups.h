// Cooperative groups for the CPU backend: the common subset (this_thread_block, tiled_partition<N> with
// shuffles and votes, grid_group ranks, cg::reduce), built on the shim's barriers and warp operations.
// What needs hardware the CPU backend does not model (grid-wide sync, multi-grid, clusters) stops the
// compile with a message naming the plain-CUDA way to write it.
#pragma once

namespace cooperative_groups {

namespace details {
template <class T>
inline constexpr bool never = false;
inline unsigned linear_tid() { return CP_SHIM_STATE.linear_tid; }
inline unsigned block_threads() { return blockDim.x * blockDim.y * blockDim.z; }
}  // namespace details

// The threads of the running block.
class thread_block {
public:
    void sync(int line = __builtin_LINE()) const {
        (void)::cp_shim::sync_threads(::cp_abi::kSyncThreads, 1, line);
    }
    unsigned long long thread_rank() const { return details::linear_tid(); }
    unsigned long long size() const { return details::block_threads(); }
    unsigned long long num_threads() const { return details::block_threads(); }
    dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    dim3 group_dim() const { return blockDim; }
    dim3 dim_threads() const { return blockDim; }
};

inline thread_block this_thread_block() { return thread_block(); }

// Scratch the samples declare for tiles larger than a warp (CUDA 11 takes <TileCommunicationSize, MaxBlockSize>,
// CUDA 12 <MaxBlockSize>): the CPU backend needs none, so any arguments are accepted.
template <unsigned int... Sizes>
struct block_tile_memory {};
template <unsigned int... Sizes>
thread_block this_thread_block(block_tile_memory<Sizes...>&) {
    return thread_block();
}

template <unsigned N, class Parent = void>
class thread_block_tile;

// A group whose size is known only at run time: tiled_partition(block, n).
class thread_group {
public:
    explicit thread_group(unsigned size) : size_(size) {}
    thread_group(const thread_block&) : size_(details::block_threads()) {}
    template <unsigned N, class P>
    thread_group(const thread_block_tile<N, P>&) : size_(N) {}
    void sync(int line = __builtin_LINE()) const {
        if (size_ >= details::block_threads())
            (void)::cp_shim::sync_threads(::cp_abi::kSyncThreads, 1, line);
        else
            ::cp_shim::warp_call(::cp_abi::kSyncWarp, mask(), 0, 0, 32, line);
    }
    unsigned long long thread_rank() const { return details::linear_tid() % size_; }
    unsigned long long size() const { return size_; }
    unsigned long long num_threads() const { return size_; }
    unsigned meta_group_rank() const { return details::linear_tid() / size_; }

private:
    unsigned mask() const {
        const unsigned lane = details::linear_tid() & 31u;
        const unsigned bits = size_ >= 32 ? 0xffffffffu : ((1u << size_) - 1u);
        return size_ >= 32 ? bits : bits << (lane / size_ * size_);
    }
    unsigned size_;
};

// A tile of N threads (N a power of two up to 32) of consecutive thread ranks. Other sizes are refused with the
// user's line before compiling (source_prep.cpp); the check here only catches an N known once instantiated.
template <unsigned N, class Parent>
class thread_block_tile {
    static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0,
                  "the CPU backend supports tiled_partition<N> for N = 1, 2, 4, 8, 16 or 32");

public:
    thread_block_tile() = default;
    // thread_block_tile<32> t = tiled_partition<32>(block): the parent is part of CUDA's type, not of ours.
    template <class P>
    thread_block_tile(const thread_block_tile<N, P>&) {}
    bool is_valid() const { return true; }
    static constexpr unsigned num_threads_v = N;
    void sync(int line = __builtin_LINE()) const { ::cp_shim::warp_call(::cp_abi::kSyncWarp, mask(), 0, 0, 32, line); }
    unsigned long long thread_rank() const { return details::linear_tid() % N; }
    static constexpr unsigned long long size() { return N; }
    static constexpr unsigned long long num_threads() { return N; }
    unsigned long long meta_group_rank() const { return details::linear_tid() / N; }
    unsigned long long meta_group_size() const { return (details::block_threads() + N - 1) / N; }

    template <class T>
    T shfl(T var, int src_rank, int line = __builtin_LINE()) const {
        return ::cp_shim::shuffle(::cp_abi::kShfl, line, mask(), var, src_rank, int(N));
    }
    template <class T>
    T shfl_down(T var, unsigned delta, int line = __builtin_LINE()) const {
        return ::cp_shim::shuffle(::cp_abi::kShflDown, line, mask(), var, int(delta), int(N));
    }
    template <class T>
    T shfl_up(T var, unsigned delta, int line = __builtin_LINE()) const {
        return ::cp_shim::shuffle(::cp_abi::kShflUp, line, mask(), var, int(delta), int(N));
    }
    template <class T>
    T shfl_xor(T var, unsigned lane_mask, int line = __builtin_LINE()) const {
        return ::cp_shim::shuffle(::cp_abi::kShflXor, line, mask(), var, int(lane_mask), int(N));
    }
    int any(int predicate, int line = __builtin_LINE()) const {
        return int(::cp_shim::warp_call(::cp_abi::kVoteAny, mask(), predicate ? 1 : 0, 0, 32, line));
    }
    int all(int predicate, int line = __builtin_LINE()) const {
        return int(::cp_shim::warp_call(::cp_abi::kVoteAll, mask(), predicate ? 1 : 0, 0, 32, line));
    }
    unsigned ballot(int predicate, int line = __builtin_LINE()) const {
        const unsigned bits = unsigned(::cp_shim::warp_call(::cp_abi::kBallot, mask(), predicate ? 1 : 0, 0, 32, line));
        return N == 32 ? bits : (bits >> (lane() / N * N)) & ((1u << N) - 1u);
    }

private:
    static unsigned lane() { return details::linear_tid() & 31u; }
    static unsigned mask() { return N == 32 ? 0xffffffffu : ((1u << N) - 1u) << (lane() / N * N); }
};

template <unsigned N, class Parent>
thread_block_tile<N, Parent> tiled_partition(const Parent&) {
    return thread_block_tile<N, Parent>();
}
template <class Parent>
thread_group tiled_partition(const Parent&, unsigned size) {
    return thread_group(size);
}

// The whole grid: ranks and sizes. grid.sync() needs a cooperative launch, which the CPU backend lacks.
class grid_group {
public:
    unsigned long long thread_rank() const { return block_rank() * details::block_threads() + details::linear_tid(); }
    unsigned long long size() const { return num_blocks() * details::block_threads(); }
    unsigned long long num_threads() const { return size(); }
    unsigned long long block_rank() const {
        return blockIdx.x + gridDim.x * (blockIdx.y + static_cast<unsigned long long>(gridDim.y) * blockIdx.z);
    }
    unsigned long long num_blocks() const {
        return static_cast<unsigned long long>(gridDim.x) * gridDim.y * gridDim.z;
    }
    dim3 group_dim() const { return gridDim; }
    dim3 block_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    bool is_valid() const { return true; }
#if defined(CP_SHIM_KERNELS_ELSEWHERE)
    // A whole program whose kernels run on a GPU: this library's copy of the kernel is only probed, never run.
    void sync(int = 0) const { ::cp_shim::fail(::cp_abi::kUnsupported, "grid-wide sync (this_grid().sync())", 0); }
#else
    template <class Never = void>
    void sync(int = 0) const {
        static_assert(details::never<Never>,
                      "grid-wide sync (this_grid().sync()) is not supported by the CPU backend: end the kernel at "
                      "that point and launch a second kernel for what follows (a launch boundary syncs the grid)");
    }
#endif
};

inline grid_group this_grid() { return grid_group(); }

template <class Group>
void sync(const Group& g, int line = __builtin_LINE()) {
    g.sync(line);
}
template <class Group>
unsigned long long thread_rank(const Group& g) {
    return g.thread_rank();
}
template <class Group>
unsigned long long group_size(const Group& g) {
    return g.size();
}

template <class T>
struct plus {
    T operator()(const T& a, const T& b) const { return a + b; }
};
template <class T>
struct less {
    T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
template <class T>
struct greater {
    T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
template <class T>
struct bit_and {
    T operator()(const T& a, const T& b) const { return a & b; }
};
template <class T>
struct bit_or {
    T operator()(const T& a, const T& b) const { return a | b; }
};
template <class T>
struct bit_xor {
    T operator()(const T& a, const T& b) const { return a ^ b; }
};

// cg::reduce over a tile: every thread of the tile gets op applied over the tile's values.
template <unsigned N, class P, class T, class Op>
T reduce(const thread_block_tile<N, P>& tile, T value, Op op) {
    for (unsigned offset = N / 2; offset > 0; offset /= 2) value = op(value, tile.shfl_xor(value, offset));
    return value;
}

}  // namespace cooperative_groups
