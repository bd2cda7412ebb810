// Proposing a header from a kernel signature: names decide 1D or 2D (width/height, nx/ny, cols/rows), const
// pointers are inputs with random values, other pointers outputs, scalars params with defaults.
#include "core/kernel_file/describe.h"

#include "core/kernel_file/kernel_file.h"
#include "core/text_util.h"

#include <algorithm>

namespace cp {

namespace {

bool points_to_const(const SignatureParam& p) {
    return p.type_text.substr(0, p.type_text.find('*')).find("const") != std::string::npos;
}

const SignatureParam* find(const KernelSignature& sig, std::initializer_list<const char*> names) {
    for (const char* name : names)
        for (const auto& p : sig.params)
            if (!p.is_pointer && p.name == name) return &p;
    return nullptr;
}

}  // namespace

Result<std::string> propose_header(const KernelFile& file, const std::string& kernel) {
    if (file.spec.has_metadata)
        return make_error(ErrorKind::UserInput, "`" + file.path.string() + "` already has a `/*@playground` header",
                          "describe writes a header for a file without one; edit the existing header instead");
    std::vector<Diagnostic> diags;
    const auto sig = parse_signature(file.source, file.path.string(), diags, kernel, 0);
    if (!sig) {
        std::string why;
        for (const auto& d : diags)
            if (d.severity == Severity::Error) why += (why.empty() ? "" : "; ") + d.message;
        return make_error(ErrorKind::UserInput, "cannot describe `" + file.path.string() + "`: " + why,
                          "choose the kernel or instantiation with --kernel, e.g. --kernel 'reduce<float, 256>'");
    }

    // 2D when the kernel takes a width and a height under a usual pair of names.
    const SignatureParam *w = nullptr, *h = nullptr;
    for (auto [wn, hn] : {std::pair{"width", "height"}, {"w", "h"}, {"nx", "ny"}, {"cols", "rows"}, {"W", "H"}}) {
        w = find(*sig, {wn});
        h = find(*sig, {hn});
        if (w && h) break;
    }
    const bool two_d = w && h;
    const SignatureParam* size = two_d ? nullptr : find(*sig, {"n", "N", "count", "size", "len", "length", "numElements", "num_elements", "elements"});
    if (!two_d && !size)
        for (const auto& p : sig->params)
            if (!p.is_pointer && parse_scalar_type(p.base_type) == ScalarType::Int) {
                size = &p;
                break;
            }
    const std::string count = two_d ? w->name + " * " + h->name : size ? size->name : "n";

    std::vector<std::string> lines;
    lines.push_back("title: " + sig->name);
    lines.push_back("about: A header proposed by `cuda-playground describe` from the signature of `" + sig->launch_name +
                    "`. Check the buffer sizes, directions and the launch, then write what the kernel teaches here.");
    if (!kernel.empty() || sig->launch_name != sig->name) lines.push_back("kernel: " + sig->launch_name);
    if (!two_d && !size) lines.push_back("param n: int = 100003");
    int seed = 1;
    for (const auto& p : sig->params) {
        if (p.is_pointer) {
            const auto elem = parse_elem_type(p.base_type);
            if (!elem) {
                lines.push_back("# `" + p.name + "` points to `" + p.base_type + "`, which the playground cannot fill: change it to one of " +
                                join(elem_type_names(), ", "));
                continue;
            }
            const ElemTypeInfo& info = elem_info(*elem);
            std::string line = "buffer " + p.name + ": " + info.name + "[" + count + "] ";
            if (points_to_const(p))
                line += "in random(seed=" + std::to_string(seed++) + (info.is_float ? ", min=-1, max=1)" : ", min=0, max=100)");
            else
                line += "out zeros";
            lines.push_back(line);
            continue;
        }
        const auto scalar = parse_scalar_type(p.base_type);
        if (!scalar) {
            lines.push_back("# `" + p.name + "` has type `" + p.base_type + "`; scalar parameters may be int, unsigned int, float or double");
            continue;
        }
        const bool is_float = *scalar == ScalarType::Float || *scalar == ScalarType::Double;
        std::string value = is_float ? "1.0" : "1";
        if (two_d && &p == w) value = "301";
        if (two_d && &p == h) value = "203";
        if (&p == size) value = "100003";
        lines.push_back("param " + p.name + ": " + scalar_type_name(*scalar) + " = " + value);
    }
    if (two_d) {
        lines.push_back("block: 16 x 16");
        lines.push_back("grid: ceil(" + w->name + " / block.x) x ceil(" + h->name + " / block.y)");
        lines.push_back("problem: " + w->name + " x " + h->name);
    } else {
        lines.push_back("block: 256");
        lines.push_back("grid: ceil(" + count + " / block.x)");
        lines.push_back("problem: " + count);
    }
    std::string out = "/*@playground\n";
    for (const auto& l : lines) out += l + "\n";
    return out + "*/\n";
}

std::string with_header(const std::string& source, const std::string& header) { return header + source; }

}  // namespace cp
