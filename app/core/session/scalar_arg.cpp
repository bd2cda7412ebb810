// Packing scalar arguments in the width and representation their declared type has.
#include "core/session/scalar_arg.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace cp {

std::optional<ScalarLayout> scalar_layout(const std::string& t) {
    using K = ScalarLayout::Kind;
    if (t == "int" || t == "int32_t" || t == "signed" || t == "signed int") return ScalarLayout{K::Signed, 4};
    if (t == "unsigned" || t == "unsigned int" || t == "uint" || t == "uint32_t") return ScalarLayout{K::Unsigned, 4};
    if (t == "float") return ScalarLayout{K::Float, 4};
    if (t == "double") return ScalarLayout{K::Float, 8};
    if (t == "long long" || t == "int64_t" || t == "long" || t == "ptrdiff_t") return ScalarLayout{K::Signed, 8};
    if (t == "unsigned long long" || t == "uint64_t" || t == "size_t" || t == "unsigned long")
        return ScalarLayout{K::Unsigned, 8};
    if (t == "bool") return ScalarLayout{K::Bool, 1};
    if (t == "char" || t == "signed char") return ScalarLayout{K::Signed, 1};
    if (t == "unsigned char" || t == "uchar" || t == "uint8_t") return ScalarLayout{K::Unsigned, 1};
    if (t == "short" || t == "int16_t") return ScalarLayout{K::Signed, 2};
    if (t == "unsigned short" || t == "ushort" || t == "uint16_t") return ScalarLayout{K::Unsigned, 2};
    return std::nullopt;
}

Result<std::vector<std::byte>> scalar_bytes(const std::string& base_type, double value) {
    auto pack = [](auto v) {
        std::vector<std::byte> b(sizeof(v));
        std::memcpy(b.data(), &v, sizeof(v));
        return b;
    };
    const auto layout = scalar_layout(base_type);
    if (!layout)
        return make_error(ErrorKind::Metadata, "parameter type `" + base_type + "` cannot be set from the playground",
                          "use int, unsigned int, float, double, long long or size_t for scalar parameters");
    const long long whole = layout->kind == ScalarLayout::Kind::Float ? 0 : std::llround(value);
    switch (layout->kind) {
        case ScalarLayout::Kind::Float:
            return layout->size == 4 ? pack(float(value)) : pack(value);
        case ScalarLayout::Kind::Bool:
            return pack(bool(value != 0));
        case ScalarLayout::Kind::Signed:
            return layout->size == 1 ? pack(int8_t(whole))
                   : layout->size == 2 ? pack(int16_t(whole))
                   : layout->size == 4 ? pack(int32_t(whole))
                                       : pack(int64_t(whole));
        case ScalarLayout::Kind::Unsigned:
            return layout->size == 1 ? pack(uint8_t(whole))
                   : layout->size == 2 ? pack(uint16_t(whole))
                   : layout->size == 4 ? pack(uint32_t(whole))
                                       : pack(uint64_t(whole));
    }
    return make_error(ErrorKind::Internal, "no packing for parameter type `" + base_type + "`");
}

std::optional<double> scalar_value(const std::string& base_type, const std::vector<std::byte>& bytes) {
    const auto layout = scalar_layout(base_type);
    if (!layout || bytes.size() != layout->size) return std::nullopt;
    auto read = [&](auto zero) {
        std::memcpy(&zero, bytes.data(), sizeof zero);
        return static_cast<double>(zero);
    };
    switch (layout->kind) {
        case ScalarLayout::Kind::Float:
            return layout->size == 4 ? read(float{}) : read(double{});
        case ScalarLayout::Kind::Bool:
            return read(uint8_t{});
        case ScalarLayout::Kind::Signed:
            return layout->size == 1 ? read(int8_t{})
                   : layout->size == 2 ? read(int16_t{})
                   : layout->size == 4 ? read(int32_t{})
                                       : read(int64_t{});
        case ScalarLayout::Kind::Unsigned:
            return layout->size == 1 ? read(uint8_t{})
                   : layout->size == 2 ? read(uint16_t{})
                   : layout->size == 4 ? read(uint32_t{})
                                       : read(uint64_t{});
    }
    return std::nullopt;
}

Result<std::vector<KernelArg>> kernel_args(const KernelSignature& sig, const std::map<std::string, double>& params,
                                           const std::function<BufferArg(const std::string&)>& buffer) {
    std::vector<KernelArg> args;
    for (const SignatureParam& p : sig.params) {
        KernelArg arg;
        arg.name = p.name;
        if (p.is_pointer) {
            const BufferArg b = buffer(p.name);
            arg.buffer = b.buffer;
            arg.offset = b.offset;
        } else {
            auto bytes = scalar_bytes(p.base_type, params.at(p.name));
            if (!bytes) return bytes.error();
            arg.scalar = std::move(*bytes);
        }
        args.push_back(std::move(arg));
    }
    return args;
}

}  // namespace cp
