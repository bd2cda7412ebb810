// Comparing a kernel's outputs with what its reference computed, component by component within a tolerance.
#include "core/session/output_compare.h"

#include "core/data/elem_access.h"

#include <cmath>
#include <cstdio>

namespace cp {

namespace {

std::string element_number_text(double v) {
    char text[64];
    std::snprintf(text, sizeof text, "%.9g", v);
    return text;
}

std::string format_element(const HostBuffer& b, uint64_t index) {
    const ElemTypeInfo& info = elem_info(b.type);
    const std::byte* element = b.bytes.data() + index * info.size;
    if (info.components == 1) return element_number_text(read_component(element, b.type, 0));
    std::string out = "(";
    for (uint32_t c = 0; c < info.components; ++c) {
        if (c) out += ",";
        out += element_number_text(read_component(element, b.type, c));
    }
    return out + ")";
}

}  // namespace

Comparison compare_buffers(const HostBuffer& actual, const HostBuffer& expected, double tolerance, bool want_error_map) {
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
    result.mismatched_components.assign(info.components, 0);
    if (want_error_map) result.abs_error.assign(count, 0.0f);
    for (uint64_t i = 0; i < count; ++i) {
        const std::byte* a = actual.bytes.data() + i * info.size;
        const std::byte* e = expected.bytes.data() + i * info.size;
        bool element_differs = false;
        for (uint32_t c = 0; c < info.components; ++c) {
            const double av = read_component(a, actual.type, c);
            const double ev = read_component(e, actual.type, c);
            double error = std::fabs(av - ev);
            if (std::isnan(av) || std::isnan(ev))
                error = (std::isnan(av) && std::isnan(ev)) ? 0 : INFINITY;
            else if (av == ev)
                error = 0;  // equal infinities
            if (error > result.max_abs_error) result.max_abs_error = error;
            if (want_error_map && error > result.abs_error[i]) result.abs_error[i] = float(error);
            if (error > tolerance) {
                ++result.mismatches;
                ++result.mismatched_components[c];
                element_differs = true;
            }
        }
        if (element_differs) {
            ++result.mismatched_elements;
            if (result.first_mismatches.size() < 10)
                result.first_mismatches.push_back(name + "[" + std::to_string(i) + "] = " + format_element(actual, i) +
                                                  ", expected " + format_element(expected, i));
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
