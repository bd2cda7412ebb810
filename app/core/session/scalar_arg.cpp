// Packing scalar arguments in the width and representation their declared type has.
#include "core/session/scalar_arg.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace cp {

Result<std::vector<std::byte>> scalar_bytes(const std::string& base_type, double value) {
    auto pack = [](auto v) {
        std::vector<std::byte> b(sizeof(v));
        std::memcpy(b.data(), &v, sizeof(v));
        return b;
    };
    const std::string& t = base_type;
    if (t == "int" || t == "int32_t" || t == "signed" || t == "signed int") return pack(int32_t(std::llround(value)));
    if (t == "unsigned" || t == "unsigned int" || t == "uint" || t == "uint32_t")
        return pack(uint32_t(std::llround(value)));
    if (t == "float") return pack(float(value));
    if (t == "double") return pack(value);
    if (t == "long long" || t == "int64_t" || t == "long" || t == "ptrdiff_t")
        return pack(int64_t(std::llround(value)));
    if (t == "unsigned long long" || t == "uint64_t" || t == "size_t" || t == "unsigned long")
        return pack(uint64_t(std::llround(value)));
    if (t == "bool") return pack(bool(value != 0));
    if (t == "char" || t == "signed char") return pack(int8_t(std::llround(value)));
    if (t == "unsigned char" || t == "uchar" || t == "uint8_t") return pack(uint8_t(std::llround(value)));
    if (t == "short" || t == "int16_t") return pack(int16_t(std::llround(value)));
    if (t == "unsigned short" || t == "ushort" || t == "uint16_t") return pack(uint16_t(std::llround(value)));
    return make_error(ErrorKind::Metadata, "parameter type `" + t + "` cannot be set from the playground",
                      "use int, unsigned int, float, double, long long or size_t for scalar parameters");
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
