// Source-to-source making of the write-counting variant (count_wrapper.h): a prelude defining cp_counted<T>
// (then `#line 1`, so the compiler's line numbers stay the user's), the user's kernel turned __device__ with
// its outputs' types replaced, and the __global__ wrapper that adds the counter arrays.
#include "core/engine/count_wrapper.h"

#include "core/engine/kernel_definition.h"

#include <algorithm>
#include <cctype>

namespace cp {
namespace {

// Device code for both NVRTC and the CPU backend's shim. A store through an element proxy counts the thread
// if it is not the element's last writer; reads go through. `&out[i]` is an address type that only the atomic
// functions take (an atomic update of a histogram bin is no double write); nothing converts a cp_counted to a
// plain pointer, so a write the counters would miss does not compile instead of counting falsely.
constexpr const char* kPrelude = R"(// ---- added by CUDA Playground to count the threads writing each output element ----
struct cp_count_sink {
    unsigned int* count;
    unsigned int* writer;
    const char* base;
    unsigned long long elements;
    unsigned int element_bytes;
};
__device__ __forceinline__ unsigned int cp_thread_tag() {
    const unsigned long long block = blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
    const unsigned long long threads = (unsigned long long)blockDim.x * blockDim.y * blockDim.z;
    const unsigned long long thread = threadIdx.x + (unsigned long long)blockDim.x * (threadIdx.y + (unsigned long long)blockDim.y * threadIdx.z);
    return (unsigned int)((block * threads + thread) % 0xFFFFFFFFull) + 1u;
}
__device__ __forceinline__ void cp_count_store(const cp_count_sink& s, const void* at, unsigned int bytes) {
    const char* c = (const char*)at;
    if (c < s.base) return;
    const unsigned long long off = (unsigned long long)(c - s.base);
    const unsigned long long last = (off + bytes - 1) / s.element_bytes;
    const unsigned int me = cp_thread_tag();
    for (unsigned long long e = off / s.element_bytes; e <= last && e < s.elements; ++e)
        if (atomicExch(s.writer + e, me) != me) atomicAdd(s.count + e, 1u);
}
template <class T> struct cp_counted_addr { T* p; };
template <class T> struct cp_counted_ref {
    T* p;
    cp_count_sink s;
    __device__ __forceinline__ cp_counted_ref(T* at, const cp_count_sink& sink) : p(at), s(sink) {}
    cp_counted_ref(const cp_counted_ref&) = default;
    __device__ __forceinline__ operator T() const { return *p; }
    __device__ __forceinline__ void counted() const { cp_count_store(s, p, sizeof(T)); }
    __device__ __forceinline__ cp_counted_ref& operator=(const T& v) { *p = v; counted(); return *this; }
    __device__ __forceinline__ cp_counted_ref& operator=(const cp_counted_ref& o) { const T v = *o.p; *p = v; counted(); return *this; }
#define CP_COUNTED_COMPOUND(OP) \
    template <class U> __device__ __forceinline__ cp_counted_ref& operator OP(const U& v) { *p OP v; counted(); return *this; }
    CP_COUNTED_COMPOUND(+=) CP_COUNTED_COMPOUND(-=) CP_COUNTED_COMPOUND(*=) CP_COUNTED_COMPOUND(/=)
    CP_COUNTED_COMPOUND(%=) CP_COUNTED_COMPOUND(&=) CP_COUNTED_COMPOUND(|=) CP_COUNTED_COMPOUND(^=)
    CP_COUNTED_COMPOUND(<<=) CP_COUNTED_COMPOUND(>>=)
#undef CP_COUNTED_COMPOUND
    __device__ __forceinline__ cp_counted_ref& operator++() { ++*p; counted(); return *this; }
    __device__ __forceinline__ cp_counted_ref& operator--() { --*p; counted(); return *this; }
    __device__ __forceinline__ T operator++(int) { const T old = *p; ++*p; counted(); return old; }
    __device__ __forceinline__ T operator--(int) { const T old = *p; --*p; counted(); return old; }
    __device__ __forceinline__ cp_counted_addr<T> operator&() const { return {p}; }
};
template <class T> struct cp_counted {
    T* p;
    cp_count_sink s;
    __device__ __forceinline__ cp_counted(T* at, const cp_count_sink& sink) : p(at), s(sink) {}
    __device__ __forceinline__ cp_counted(T* at, unsigned int* count, unsigned int* writer, unsigned int element_bytes,
                                          unsigned long long elements)
        : p(at), s{count, writer, (const char*)at, elements, element_bytes} {}
    template <class I> __device__ __forceinline__ cp_counted_ref<T> operator[](I i) const { return cp_counted_ref<T>(p + i, s); }
    __device__ __forceinline__ cp_counted_ref<T> operator*() const { return cp_counted_ref<T>(p, s); }
    template <class I> __device__ __forceinline__ cp_counted operator+(I i) const { return cp_counted(p + i, s); }
    template <class I> __device__ __forceinline__ cp_counted operator-(I i) const { return cp_counted(p - i, s); }
    __device__ __forceinline__ long long operator-(const cp_counted& o) const { return p - o.p; }
    template <class I> __device__ __forceinline__ cp_counted& operator+=(I i) { p += i; return *this; }
    template <class I> __device__ __forceinline__ cp_counted& operator-=(I i) { p -= i; return *this; }
    __device__ __forceinline__ cp_counted& operator++() { ++p; return *this; }
    __device__ __forceinline__ cp_counted& operator--() { --p; return *this; }
    __device__ __forceinline__ cp_counted operator++(int) { cp_counted old = *this; ++p; return old; }
    __device__ __forceinline__ cp_counted operator--(int) { cp_counted old = *this; --p; return old; }
    __device__ __forceinline__ bool operator==(const cp_counted& o) const { return p == o.p; }
    __device__ __forceinline__ bool operator!=(const cp_counted& o) const { return p != o.p; }
    __device__ __forceinline__ bool operator<(const cp_counted& o) const { return p < o.p; }
    __device__ __forceinline__ bool operator<=(const cp_counted& o) const { return p <= o.p; }
    __device__ __forceinline__ bool operator>(const cp_counted& o) const { return p > o.p; }
    __device__ __forceinline__ bool operator>=(const cp_counted& o) const { return p >= o.p; }
};
template <class I, class T> __device__ __forceinline__ cp_counted<T> operator+(I i, const cp_counted<T>& c) { return c + i; }
// Atomics take `&out[i]` and `out + i` (and `out`) as the plain pointer, uncounted.
#define CP_COUNTED_ATOMIC(NAME) \
    template <class T, class... A> __device__ __forceinline__ auto NAME(cp_counted_addr<T> a, A... v) -> decltype(NAME(a.p, v...)) { return NAME(a.p, v...); } \
    template <class T, class... A> __device__ __forceinline__ auto NAME(const cp_counted<T>& c, A... v) -> decltype(NAME(c.p, v...)) { return NAME(c.p, v...); }
CP_COUNTED_ATOMIC(atomicAdd) CP_COUNTED_ATOMIC(atomicSub) CP_COUNTED_ATOMIC(atomicExch) CP_COUNTED_ATOMIC(atomicMin)
CP_COUNTED_ATOMIC(atomicMax) CP_COUNTED_ATOMIC(atomicInc) CP_COUNTED_ATOMIC(atomicDec) CP_COUNTED_ATOMIC(atomicCAS)
CP_COUNTED_ATOMIC(atomicAnd) CP_COUNTED_ATOMIC(atomicOr) CP_COUNTED_ATOMIC(atomicXor)
#undef CP_COUNTED_ATOMIC
// ---- the kernel's own source follows ----
)";

std::string trim(const std::string& s) {
    size_t a = 0, b = s.size();
    while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
    return s.substr(a, b - a);
}

bool ends_with_word(const std::string& s, const std::string& w) {
    return s.size() >= w.size() && s.compare(s.size() - w.size(), w.size(), w) == 0 &&
           (s.size() == w.size() || !(std::isalnum(static_cast<unsigned char>(s[s.size() - w.size() - 1])) ||
                                      s[s.size() - w.size() - 1] == '_'));
}

// `float* __restrict__` -> `float`; empty when the type is not a pointer to a writable element.
std::string pointee_of(std::string type, std::string& why) {
    type = trim(type);
    for (bool more = true; more;) {
        more = false;
        for (const char* q : {"__restrict__", "__restrict", "restrict", "const", "volatile"})
            if (ends_with_word(type, q)) {
                type = trim(type.substr(0, type.size() - std::string(q).size()));
                more = true;
            }
    }
    if (type.empty() || type.back() != '*') {
        why = "it is not declared as a pointer (`T* name`)";
        return {};
    }
    std::string pointee = trim(type.substr(0, type.size() - 1));
    if (pointee.empty() || pointee.find('*') != std::string::npos) {
        why = "it is not a pointer to the elements (`T* name`)";
        return {};
    }
    if (pointee.rfind("const ", 0) == 0 || ends_with_word(pointee, "const")) {
        why = "its elements are declared const";
        return {};
    }
    return pointee;
}

}  // namespace

std::string count_param_name(const std::string& param, int which) {
    return (which == 0 ? "cp_count_" : "cp_writer_") + param;
}

Result<std::string> make_count_wrapper(const std::string& source, const std::string& kernel_name,
                                       const std::vector<CountedBuffer>& counted) {
    const auto refused = [&](const std::string& why) {
        return make_error(ErrorKind::Unsupported,
                          "cannot make the write-counting variant of `" + kernel_name + "`: " + why,
                          "the count needs `__global__ void NAME(...)` with each output declared `T* name`");
    };
    std::string why;
    const auto def = find_kernel_definition(source, kernel_name, why);
    if (!def) return refused(why);

    // The user's parameter list with each counted output's type replaced (from the end, so offsets hold).
    std::string user_params = def->params_text;
    std::vector<std::string> call_args(def->params.size());
    for (size_t i = 0; i < def->params.size(); ++i) call_args[i] = def->params[i].name;
    std::vector<size_t> order(def->params.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = order.size() - 1 - i;
    size_t found = 0;
    for (size_t i : order) {
        const auto& p = def->params[i];
        const auto c = std::find_if(counted.begin(), counted.end(), [&](const CountedBuffer& b) { return b.param == p.name; });
        if (c == counted.end()) continue;
        ++found;
        if (p.name_at + p.name.size() != p.end) return refused("`" + p.name + "` is not declared `T* " + p.name + "`");
        const std::string type = def->params_text.substr(p.begin, p.name_at - p.begin);
        const std::string pointee = pointee_of(type, why);
        if (pointee.empty()) return refused("`" + p.name + "`: " + why);
        // Keep the declaration's line breaks, so the body's line numbers stay the user's.
        const std::string breaks(size_t(std::count(type.begin(), type.end(), '\n')), '\n');
        user_params.replace(p.begin, p.name_at - p.begin, "cp_counted<" + pointee + "> " + breaks);
        call_args[i] = "cp_counted<" + pointee + ">(" + p.name + ", " + count_param_name(p.name, 0) + ", " +
                       count_param_name(p.name, 1) + ", " + std::to_string(c->unit_bytes) + "u, " +
                       std::to_string(c->units) + "ull)";
    }
    if (found != counted.size()) return refused("an output is not among the kernel's parameters");

    const std::string body_name = kernel_name + "__cp_user";
    std::string out = kPrelude;
    out += "#line 1\n";
    out += source.substr(0, def->global);
    out += "__device__ __forceinline__" + def->between + body_name + "(" + user_params + ")";
    out += source.substr(def->close);

    std::string wrapper_params = trim(def->params_text) == "void" ? std::string() : def->params_text;
    for (const CountedBuffer& c : counted)
        wrapper_params += (trim(wrapper_params).empty() ? "" : ", ") + std::string("unsigned int* ") +
                          count_param_name(c.param, 0) + ", unsigned int* " + count_param_name(c.param, 1);
    std::string args;
    for (size_t i = 0; i < call_args.size(); ++i) args += (i ? ", " : "") + call_args[i];
    out += "\n\n// ---- added by CUDA Playground for a counted launch: which threads wrote each output element ----\n";
    out += "extern \"C\" __global__ void " + def->bounds + (def->bounds.empty() ? "" : " ") + kernel_name + "(" +
           wrapper_params + ")\n{\n    " + body_name + "(" + args + ");\n}\n";
    return out;
}

}  // namespace cp
