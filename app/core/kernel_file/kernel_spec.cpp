// Element and scalar type tables for kernel files: sizes, CUDA spellings, and look-ups by name.
#include "core/kernel_file/kernel_spec.h"
#include "core/kernel_file/scalar_range.h"

#include "core/text_util.h"

#include <array>
#include <map>

namespace cp {

namespace {

constexpr std::array<ElemTypeInfo, 22> kElemTypes = {{
    {ElemType::Char, "char", 1, 1, false, 1},
    {ElemType::UChar, "uchar", 1, 1, false, 1},
    {ElemType::Short, "short", 2, 1, false, 2},
    {ElemType::UShort, "ushort", 2, 1, false, 2},
    {ElemType::Int, "int", 4, 1, false, 4},
    {ElemType::UInt, "uint", 4, 1, false, 4},
    {ElemType::LongLong, "longlong", 8, 1, false, 8},
    {ElemType::ULongLong, "ulonglong", 8, 1, false, 8},
    {ElemType::Float, "float", 4, 1, true, 4},
    {ElemType::Double, "double", 8, 1, true, 8},
    {ElemType::UChar2, "uchar2", 2, 2, false, 1},
    {ElemType::UChar3, "uchar3", 3, 3, false, 1},
    {ElemType::UChar4, "uchar4", 4, 4, false, 1},
    {ElemType::Int2, "int2", 8, 2, false, 4},
    {ElemType::Int3, "int3", 12, 3, false, 4},
    {ElemType::Int4, "int4", 16, 4, false, 4},
    {ElemType::Float2, "float2", 8, 2, true, 4},
    {ElemType::Float3, "float3", 12, 3, true, 4},
    {ElemType::Float4, "float4", 16, 4, true, 4},
    {ElemType::UInt2, "uint2", 8, 2, false, 4},
    {ElemType::UInt3, "uint3", 12, 3, false, 4},
    {ElemType::UInt4, "uint4", 16, 4, false, 4},
}};

// Other spellings a CUDA programmer may write for the same types (whitespace already collapsed).
const std::map<std::string, ElemType>& elem_aliases() {
    static const std::map<std::string, ElemType> aliases = {
        {"signed char", ElemType::Char},          {"int8_t", ElemType::Char},
        {"unsigned char", ElemType::UChar},       {"uint8_t", ElemType::UChar},
        {"uchar1", ElemType::UChar},              {"short int", ElemType::Short},
        {"signed short", ElemType::Short},        {"int16_t", ElemType::Short},
        {"unsigned short", ElemType::UShort},     {"unsigned short int", ElemType::UShort},
        {"uint16_t", ElemType::UShort},           {"signed", ElemType::Int},
        {"signed int", ElemType::Int},            {"int32_t", ElemType::Int},
        {"int1", ElemType::Int},                  {"unsigned", ElemType::UInt},
        {"unsigned int", ElemType::UInt},         {"uint32_t", ElemType::UInt},
        {"long long", ElemType::LongLong},        {"long long int", ElemType::LongLong},
        {"signed long long", ElemType::LongLong}, {"int64_t", ElemType::LongLong},
        {"unsigned long long", ElemType::ULongLong}, {"unsigned long long int", ElemType::ULongLong},
        {"uint64_t", ElemType::ULongLong},        {"uint1", ElemType::UInt},        {"float1", ElemType::Float},
    };
    return aliases;
}

}  // namespace

const ElemTypeInfo& elem_info(ElemType t) {
    for (const auto& info : kElemTypes)
        if (info.type == t) return info;
    return kElemTypes[8];  // unreachable for valid enum values; float keeps callers safe
}

std::optional<ElemType> parse_elem_type(const std::string& cuda_spelling) {
    std::string s = collapse_spaces(cuda_spelling);
    // "const float" and "float const" name the same element type.
    for (const std::string q : {"const ", "volatile "})
        while (s.rfind(q, 0) == 0) s = s.substr(q.size());
    for (const std::string q : {" const", " volatile"})
        while (s.size() > q.size() && s.compare(s.size() - q.size(), q.size(), q) == 0)
            s = s.substr(0, s.size() - q.size());
    for (const auto& info : kElemTypes)
        if (s == info.name) return info.type;
    const auto& aliases = elem_aliases();
    if (auto it = aliases.find(s); it != aliases.end()) return it->second;
    return std::nullopt;
}

std::vector<std::string> elem_type_names() {
    std::vector<std::string> names;
    for (const auto& info : kElemTypes) names.push_back(info.name);
    return names;
}

const char* scalar_type_name(ScalarType t) {
    switch (t) {
        case ScalarType::Int: return "int";
        case ScalarType::UInt: return "uint";
        case ScalarType::Float: return "float";
        case ScalarType::Double: return "double";
    }
    return "?";
}

std::optional<ScalarType> parse_scalar_type(const std::string& cuda_spelling) {
    auto elem = parse_elem_type(cuda_spelling);
    if (!elem) return std::nullopt;
    switch (*elem) {
        case ElemType::Int: return ScalarType::Int;
        case ElemType::UInt: return ScalarType::UInt;
        case ElemType::Float: return ScalarType::Float;
        case ElemType::Double: return ScalarType::Double;
        default: return std::nullopt;
    }
}

uint32_t scalar_size(ScalarType t) { return t == ScalarType::Double ? 8 : 4; }

ScalarRange scalar_range(ScalarType t) {
    switch (t) {
        case ScalarType::Int:
            return {-2147483648.0, 2147483647.0};
        case ScalarType::UInt:
            return {0.0, 4294967295.0};
        case ScalarType::Float:
            return {-3.4028234663852886e38, 3.4028234663852886e38};
        case ScalarType::Double:
            break;
    }
    return {-1.7976931348623157e308, 1.7976931348623157e308};
}

const std::vector<std::string>& showable_panels() {
    static const std::vector<std::string> names = {"Output",  "Compare",   "Console", "Streams", "Timing",
                                                   "Occupancy", "Sweep",   "Launch view", "Launch", "Parameters",
                                                   "Device",  "Editor",    "Library", "Memory"};
    return names;
}

const char* expected_outcome_name(ExpectedOutcome e) {
    switch (e) {
        case ExpectedOutcome::None:
            return "none";
        case ExpectedOutcome::Mismatch:
            return "mismatch";
        case ExpectedOutcome::Fault:
            return "fault";
        case ExpectedOutcome::Refused:
            return "refused";
        case ExpectedOutcome::Hang:
            return "hang";
        case ExpectedOutcome::Undefined:
            return "undefined";
    }
    return "?";
}

bool ExpectClause::applies(const std::string& run_backend, int cc) const {
    if (!backend.empty() && backend != run_backend) return false;
    if ((from_cc || before_cc) && cc <= 0) return false;  // a device with no compute capability: not this clause's
    if (from_cc && cc < from_cc) return false;
    if (before_cc && cc >= before_cc) return false;
    return true;
}

std::string ExpectClause::str() const {
    std::string s = expected_outcome_name(outcome);
    if (!backend.empty()) s += " on " + backend;
    if (from_cc) s += " from sm_" + std::to_string(from_cc);
    if (before_cc) s += " before sm_" + std::to_string(before_cc);
    return s;
}

const char* direction_name(Direction d) {
    switch (d) {
        case Direction::In: return "in";
        case Direction::Out: return "out";
        case Direction::InOut: return "inout";
    }
    return "?";
}

const BufferSpec* KernelFile::buffer(const std::string& name) const {
    for (const auto& b : spec.buffers)
        if (b.name == name) return &b;
    return nullptr;
}

const ParamSpec* KernelFile::param(const std::string& name) const {
    for (const auto& p : spec.params)
        if (p.name == name) return &p;
    return nullptr;
}

}  // namespace cp
