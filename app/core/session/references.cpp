// Independent CPU references for the library kernels, and the element-wise comparison used to verify
// a kernel's output. The references are written as plain loops over the problem, not as copies of the
// kernels, so a bug in a kernel does not repeat itself here.
#include "core/session/references.h"

#include "core/data/elem_access.h"
#include "core/text_util.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace cp {

namespace {

// ---- helpers for looking up inputs with messages that say what is missing ----

std::string buffer_names(const ReferenceInputs& in) {
    std::vector<std::string> names;
    for (const auto& [name, buffer] : in.buffers) names.push_back(name);
    return names.empty() ? "(none)" : join(names, ", ");
}

// Returns the buffer `name` of type `type` with at least `count` elements, or sets `error`.
const HostBuffer* need_buffer(const ReferenceInputs& in, const char* reference, const std::string& name,
                              ElemType type, uint64_t count, std::string& error) {
    auto it = in.buffers.find(name);
    if (it == in.buffers.end()) {
        error = std::string("reference `") + reference + "` needs a buffer named `" + name + "` (" +
                elem_info(type).name + "); this kernel's buffers are: " + buffer_names(in);
        return nullptr;
    }
    if (it->second.type != type) {
        error = std::string("reference `") + reference + "` needs `" + name + "` to hold " + elem_info(type).name +
                ", but it holds " + elem_info(it->second.type).name;
        return nullptr;
    }
    if (it->second.count() < count) {
        error = std::string("reference `") + reference + "`: buffer `" + name + "` has " +
                std::to_string(it->second.count()) + " elements but " + std::to_string(count) + " are needed";
        return nullptr;
    }
    return &it->second;
}

bool need_param(const ReferenceInputs& in, const char* reference, const std::string& name, int64_t& out,
                std::string& error) {
    auto it = in.params.find(name);
    if (it == in.params.end()) {
        error = std::string("reference `") + reference + "` needs a parameter named `" + name + "`";
        return false;
    }
    if (!(it->second >= 0) || it->second > 1e12) {
        error = std::string("reference `") + reference + "`: parameter `" + name + "` = " +
                std::to_string(it->second) + " is not a valid size";
        return false;
    }
    out = static_cast<int64_t>(it->second);
    return true;
}

HostBuffer make_output(const std::string& name, ElemType type, uint64_t count) {
    HostBuffer b;
    b.name = name;
    b.type = type;
    b.bytes.assign(count * elem_info(type).size, std::byte{0});
    return b;
}

struct Rgba {
    uint8_t r, g, b, a;
};
static_assert(sizeof(Rgba) == 4);

// ---- the references ----

std::string vector_add(const ReferenceInputs& in, std::map<std::string, HostBuffer>& expected) {
    std::string error;
    int64_t n = 0;
    if (!need_param(in, "vector_add", "n", n, error)) return error;
    const HostBuffer* a = need_buffer(in, "vector_add", "a", ElemType::Float, n, error);
    const HostBuffer* b = a ? need_buffer(in, "vector_add", "b", ElemType::Float, n, error) : nullptr;
    if (!b) return error;
    HostBuffer c = make_output("c", ElemType::Float, n);
    // Single-precision sums: the kernel adds floats, and IEEE float addition is exactly rounded.
    const float* pa = a->as<float>();
    const float* pb = b->as<float>();
    float* pc = c.as<float>();
    for (int64_t i = 0; i < n; ++i) pc[i] = pa[i] + pb[i];
    expected["c"] = std::move(c);
    return {};
}

std::string thread_ids(const ReferenceInputs& in, std::map<std::string, HostBuffer>& expected) {
    std::string error;
    int64_t width = 0, height = 0;
    if (!need_param(in, "thread_ids", "width", width, error) || !need_param(in, "thread_ids", "height", height, error))
        return error;
    HostBuffer ids = make_output("ids", ElemType::Int, width * height);
    // Every element holds its own row-major position: count up in storage order.
    int32_t* p = ids.as<int32_t>();
    int32_t next = 0;
    for (int64_t row = 0; row < height; ++row)
        for (int64_t col = 0; col < width; ++col) *p++ = next++;
    expected["ids"] = std::move(ids);
    return {};
}

std::string grayscale_bt601(const ReferenceInputs& in, std::map<std::string, HostBuffer>& expected) {
    std::string error;
    int64_t width = 0, height = 0;
    if (!need_param(in, "grayscale_bt601", "width", width, error) ||
        !need_param(in, "grayscale_bt601", "height", height, error))
        return error;
    const uint64_t pixels = uint64_t(width) * uint64_t(height);
    const HostBuffer* src = need_buffer(in, "grayscale_bt601", "src", ElemType::UChar4, pixels, error);
    if (!src) return error;
    HostBuffer dst = make_output("dst", ElemType::UChar4, pixels);
    const Rgba* s = src->as<Rgba>();
    Rgba* d = dst.as<Rgba>();
    for (uint64_t i = 0; i < pixels; ++i) {
        // Exact integer weights (per mille), rounded half up: Y = round(0.299 R + 0.587 G + 0.114 B).
        const uint32_t weighted = 299u * s[i].r + 587u * s[i].g + 114u * s[i].b;
        const uint8_t y = static_cast<uint8_t>(std::min<uint32_t>((weighted + 500) / 1000, 255));
        d[i] = Rgba{y, y, y, s[i].a};
    }
    expected["dst"] = std::move(dst);
    return {};
}

std::string box_blur_3x3(const ReferenceInputs& in, std::map<std::string, HostBuffer>& expected) {
    std::string error;
    int64_t width = 0, height = 0;
    if (!need_param(in, "box_blur_3x3", "width", width, error) || !need_param(in, "box_blur_3x3", "height", height, error))
        return error;
    const uint64_t pixels = uint64_t(width) * uint64_t(height);
    const HostBuffer* src = need_buffer(in, "box_blur_3x3", "src", ElemType::UChar4, pixels, error);
    if (!src) return error;
    HostBuffer dst = make_output("dst", ElemType::UChar4, pixels);
    if (pixels == 0) {
        expected["dst"] = std::move(dst);
        return {};
    }
    // Borders repeat the edge pixel; the average of the nine samples is rounded to nearest
    // (a sum of nine integers is never exactly halfway, so the rounding direction of ties is moot).
    const uint8_t* s = reinterpret_cast<const uint8_t*>(src->bytes.data());
    uint8_t* d = reinterpret_cast<uint8_t*>(dst.bytes.data());
    auto clamp_to = [](int64_t v, int64_t n) { return v < 0 ? 0 : (v >= n ? n - 1 : v); };
    for (int64_t y = 0; y < height; ++y) {
        for (int64_t x = 0; x < width; ++x) {
            for (int channel = 0; channel < 4; ++channel) {
                int sum = 0;
                for (int64_t ny = y - 1; ny <= y + 1; ++ny)
                    for (int64_t nx = x - 1; nx <= x + 1; ++nx)
                        sum += s[(clamp_to(ny, height) * width + clamp_to(nx, width)) * 4 + channel];
                d[(y * width + x) * 4 + channel] = static_cast<uint8_t>(std::lround(sum / 9.0));
            }
        }
    }
    expected["dst"] = std::move(dst);
    return {};
}

std::string sum(const ReferenceInputs& in, std::map<std::string, HostBuffer>& expected) {
    std::string error;
    int64_t n = 0;
    if (!need_param(in, "sum", "n", n, error)) return error;
    const HostBuffer* input = need_buffer(in, "sum", "input", ElemType::Int, n, error);
    if (!input) return error;
    // 64-bit accumulation, then the 32-bit wrap-around the kernel's int atomics would produce.
    int64_t total = 0;
    for (int64_t i = 0; i < n; ++i) total += input->as<int32_t>()[i];
    HostBuffer out = make_output("total", ElemType::Int, 1);
    out.as<int32_t>()[0] = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(total)));
    expected["total"] = std::move(out);
    return {};
}

std::string histogram256(const ReferenceInputs& in, std::map<std::string, HostBuffer>& expected) {
    std::string error;
    int64_t width = 0, height = 0;
    if (!need_param(in, "histogram256", "width", width, error) || !need_param(in, "histogram256", "height", height, error))
        return error;
    const uint64_t pixels = uint64_t(width) * uint64_t(height);
    const HostBuffer* src = need_buffer(in, "histogram256", "src", ElemType::UChar, pixels, error);
    if (!src) return error;
    HostBuffer bins = make_output("bins", ElemType::UInt, 256);
    for (uint64_t i = 0; i < pixels; ++i) ++bins.as<uint32_t>()[src->as<uint8_t>()[i]];
    expected["bins"] = std::move(bins);
    return {};
}

std::string matmul(const ReferenceInputs& in, std::map<std::string, HostBuffer>& expected) {
    std::string error;
    int64_t m = 0, n = 0, k = 0;
    if (!need_param(in, "matmul", "m", m, error) || !need_param(in, "matmul", "n", n, error) ||
        !need_param(in, "matmul", "k", k, error))
        return error;
    const HostBuffer* a = need_buffer(in, "matmul", "a", ElemType::Float, uint64_t(m * k), error);
    const HostBuffer* b = a ? need_buffer(in, "matmul", "b", ElemType::Float, uint64_t(k * n), error) : nullptr;
    if (!b) return error;
    HostBuffer c = make_output("c", ElemType::Float, uint64_t(m * n));
    // Row-major, accumulated in double: the kernel's float sums differ from it only by rounding.
    for (int64_t row = 0; row < m; ++row) {
        for (int64_t col = 0; col < n; ++col) {
            double acc = 0;
            for (int64_t j = 0; j < k; ++j) acc += double(a->as<float>()[row * k + j]) * double(b->as<float>()[j * n + col]);
            c.as<float>()[row * n + col] = static_cast<float>(acc);
        }
    }
    expected["c"] = std::move(c);
    return {};
}

std::string transpose(const ReferenceInputs& in, std::map<std::string, HostBuffer>& expected) {
    std::string error;
    int64_t width = 0, height = 0;
    if (!need_param(in, "transpose", "width", width, error) || !need_param(in, "transpose", "height", height, error))
        return error;
    const HostBuffer* src = need_buffer(in, "transpose", "src", ElemType::Float, uint64_t(width * height), error);
    if (!src) return error;
    // src is `height` rows of `width`; dst is `width` rows of `height`.
    HostBuffer dst = make_output("dst", ElemType::Float, uint64_t(width * height));
    for (int64_t row = 0; row < height; ++row)
        for (int64_t col = 0; col < width; ++col) dst.as<float>()[col * height + row] = src->as<float>()[row * width + col];
    expected["dst"] = std::move(dst);
    return {};
}

const std::map<std::string, ReferenceFn>& registry() {
    static const std::map<std::string, ReferenceFn> refs = {
        {"vector_add", vector_add},
        {"thread_ids", thread_ids},
        {"grayscale_bt601", grayscale_bt601},
        {"box_blur_3x3", box_blur_3x3},
        {"sum", sum},
        {"histogram256", histogram256},
        {"matmul", matmul},
        {"transpose", transpose},
    };
    return refs;
}

std::string format_number(double v) {
    char text[64];
    std::snprintf(text, sizeof text, "%.9g", v);
    return text;
}

std::string format_element(const HostBuffer& b, uint64_t index) {
    const ElemTypeInfo& info = elem_info(b.type);
    const std::byte* element = b.bytes.data() + index * info.size;
    if (info.components == 1) return format_number(read_component(element, b.type, 0));
    std::string out = "(";
    for (uint32_t c = 0; c < info.components; ++c) {
        if (c) out += ",";
        out += format_number(read_component(element, b.type, c));
    }
    return out + ")";
}

}  // namespace

const ReferenceFn* find_reference(const std::string& name) {
    const auto& refs = registry();
    auto it = refs.find(name);
    return it == refs.end() ? nullptr : &it->second;
}

std::vector<std::string> reference_names() {
    std::vector<std::string> names;
    for (const auto& [name, fn] : registry()) names.push_back(name);
    return names;
}

Comparison compare_buffers(const HostBuffer& actual, const HostBuffer& expected, double tolerance) {
    Comparison result;
    const std::string name = actual.name.empty() ? expected.name : actual.name;
    if (actual.type != expected.type) {
        result.ok = false;
        result.detail = name + " holds " + elem_info(actual.type).name + " but the reference gives " +
                        elem_info(expected.type).name;
        return result;
    }
    if (actual.count() != expected.count()) {
        result.ok = false;
        result.detail = name + " has " + std::to_string(actual.count()) + " elements, the reference " +
                        std::to_string(expected.count());
        return result;
    }
    const ElemTypeInfo& info = elem_info(actual.type);
    const uint64_t count = actual.count();
    for (uint64_t i = 0; i < count; ++i) {
        const std::byte* a = actual.bytes.data() + i * info.size;
        const std::byte* e = expected.bytes.data() + i * info.size;
        bool element_differs = false;
        for (uint32_t c = 0; c < info.components; ++c) {
            const double av = read_component(a, actual.type, c);
            const double ev = read_component(e, actual.type, c);
            double error = std::fabs(av - ev);
            if (std::isnan(av) || std::isnan(ev)) error = (std::isnan(av) && std::isnan(ev)) ? 0 : INFINITY;
            else if (av == ev) error = 0;  // equal infinities
            if (error > result.max_abs_error) result.max_abs_error = error;
            if (error > tolerance) {
                ++result.mismatches;
                element_differs = true;
            }
        }
        if (element_differs && result.ok) {
            result.ok = false;
            result.first_mismatch = i;
            result.detail = name + "[" + std::to_string(i) + "] = " + format_element(actual, i) + ", expected " +
                            format_element(expected, i);
        }
    }
    return result;
}

}  // namespace cp
