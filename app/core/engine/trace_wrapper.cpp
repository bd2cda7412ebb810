// Source-to-source wrapping for traced launches (see trace_wrapper.h). Only the text from `__global__` to the
// kernel's name and its parameter list change; the body, and so every line number the compiler reports, stay.
#include "core/engine/trace_wrapper.h"

#include "core/engine/kernel_definition.h"

#include <vector>

namespace cp {

Result<std::string> make_trace_wrapper(const std::string& source, const std::string& kernel_name) {
    std::string why;
    const auto def = find_kernel_definition(source, kernel_name, why);
    if (!def)
        return make_error(ErrorKind::Unsupported, "cannot instrument kernel `" + kernel_name + "` for tracing: " + why,
                          "a traced launch needs `extern \"C\" __global__ void NAME(...)` with named parameters");
    const std::string& params_text = def->params_text;
    const std::string& bounds = def->bounds;
    std::vector<std::string> names;
    for (const auto& p : def->params) names.push_back(p.name);
    const std::string body_name = kernel_name + "__cp_user";
    std::string out = source.substr(0, def->global);
    out += "__device__ __forceinline__" + def->between + body_name;
    out += source.substr(def->name_at + kernel_name.size());

    std::string args;
    for (size_t i = 0; i < names.size(); ++i) args += (i ? ", " : "") + names[i];
    out += "\n\n// ---- added by CUDA Playground for a traced launch: where and when each block ran ----\n";
    out += "__device__ unsigned long long* " + std::string(kTraceRecordsSymbol) + " = 0;\n";
    out += "extern \"C\" __global__ void " + bounds + (bounds.empty() ? "" : " ") + kernel_name + "(" + params_text + ")\n{\n";
    out += "    const bool cp_leader = threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0;\n"
           "    unsigned long long cp_start = 0;\n"
           "    if (cp_leader) asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(cp_start));\n";
    out += "    " + body_name + "(" + args + ");\n";
    out += "    __syncthreads();\n"
           "    if (cp_leader && " + std::string(kTraceRecordsSymbol) + ") {\n"
           "        unsigned long long cp_end;\n"
           "        unsigned int cp_sm;\n"
           "        asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(cp_end));\n"
           "        asm volatile(\"mov.u32 %0, %%smid;\" : \"=r\"(cp_sm));\n"
           "        const unsigned long long cp_block = blockIdx.x + (unsigned long long)gridDim.x *\n"
           "            (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);\n"
           "        unsigned long long* cp_rec = " + std::string(kTraceRecordsSymbol) + " + 3 * cp_block;\n"
           "        cp_rec[0] = cp_sm;\n"
           "        cp_rec[1] = cp_start;\n"
           "        cp_rec[2] = cp_end;\n"
           "    }\n}\n";
    return out;
}

}  // namespace cp
