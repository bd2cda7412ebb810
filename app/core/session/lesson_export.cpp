// export_lesson: the standalone program's text, generated from the resolved run (lesson_export.h).
#include "core/session/lesson_export.h"

#include "core/data/elem_access.h"
#include "core/engine/engine.h"
#include "core/kernel_file/constant_fill.h"
#include "core/kernel_file/kernel_file.h"
#include "core/kernel_file/local_includes.h"
#include "core/kernel_file/program_file.h"
#include "core/session/session.h"
#include "core/toolkit/compile_only_backend.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

namespace cp {

namespace {

// The C spelling of an element type (the header's short names are not C: `uchar`, `uint`, `longlong`).
std::string c_element_type(ElemType t) {
    switch (t) {
        case ElemType::Char: return "char";
        case ElemType::UChar: return "unsigned char";
        case ElemType::Short: return "short";
        case ElemType::UShort: return "unsigned short";
        case ElemType::Int: return "int";
        case ElemType::UInt: return "unsigned int";
        case ElemType::LongLong: return "long long";
        case ElemType::ULongLong: return "unsigned long long";
        case ElemType::Float: return "float";
        case ElemType::Double: return "double";
        default: return elem_info(t).name;  // the vector types are CUDA's own names
    }
}

// The type of one component, as the playground's fills write it (elem_access.cpp: char is signed).
std::string c_component_type(ElemType t) {
    const ElemTypeInfo& info = elem_info(t);
    if (info.is_float) return info.component_size == 8 ? "double" : "float";
    const bool unsigned_ = !is_signed_component(t);
    switch (info.component_size) {
        case 1: return unsigned_ ? "unsigned char" : "signed char";
        case 2: return unsigned_ ? "unsigned short" : "short";
        case 4: return unsigned_ ? "unsigned int" : "int";
        default: return unsigned_ ? "unsigned long long" : "long long";
    }
}

std::string c_scalar_type(ScalarType t) {
    switch (t) {
        case ScalarType::Int: return "int";
        case ScalarType::UInt: return "unsigned int";
        case ScalarType::Float: return "float";
        case ScalarType::Double: return "double";
    }
    return "int";
}

// The shortest text that reads back as `v`.
std::string shortest(double v) {
    char buf[64];
    for (int digits = 1; digits <= 17; ++digits) {
        std::snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (std::strtod(buf, nullptr) == v) break;
    }
    return buf;
}

// A double as C source: exact for whole numbers, round-trip otherwise.
std::string c_double(double v) {
    if (std::isnan(v)) return "NAN";
    if (std::isinf(v)) return v > 0 ? "INFINITY" : "-INFINITY";
    std::string s = shortest(v);
    if (s.find_first_of(".eE") == std::string::npos) s += ".0";
    return s;
}

std::string c_scalar_value(ScalarType t, double v) {
    char buf[64];
    switch (t) {
        case ScalarType::Int:
            std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(std::llround(v)));
            return buf;
        case ScalarType::UInt:
            std::snprintf(buf, sizeof buf, "%lluu", static_cast<unsigned long long>(std::llround(v)));
            return buf;
        case ScalarType::Float: {
            std::string s = shortest(double(float(v)));
            if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
            return s + "f";
        }
        case ScalarType::Double:
            return c_double(v);
    }
    return "0";
}

std::string c_literal(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out + "\"";
}

std::string dims(const Dim3& d) {
    return std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z);
}

std::string dims_text(const std::string (&e)[3]) {
    std::string out = e[0];
    for (int i = 1; i < 3; ++i)
        if (!e[i].empty() && e[i] != "1") out += " x " + e[i];
    return out;
}

// The program's name: the lesson's file name, as a C identifier (CMake's target and the executable).
std::string program_name(const KernelFile& file) {
    std::string stem = file.path.stem().string();
    std::string out;
    for (char c : stem) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
    if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "lesson_" + out;
    return out;
}

// The source with the header turned into a plain comment (a program has no playground header) and the reference
// sections' `#ifdef PLAYGROUND_REFERENCE ... #endif` lines taken away (the reference is part of the program).
std::string program_source(const std::string& source) {
    std::string text = source;
    const MetadataHeaderSpan span = find_metadata_header(text);
    if (span.found()) {
        const size_t open = span.open, close = span.close;
        if (close != std::string::npos) {
            std::string header = text.substr(span.body(), close - span.body());
            text.replace(open, close + 2 - open,
                         "/* The lesson's header, as CUDA Playground read it (a plain comment here: this program sets\n"
                         "   up and checks its own launch in main() below)." +
                             header + "*/");
        }
    }
    std::istringstream in(text);
    std::string out, line;
    int depth = 0;            // #if nesting inside a reference section
    bool in_reference = false;
    while (std::getline(in, line)) {
        std::string d;
        for (char c : line)
            if (!std::isspace(static_cast<unsigned char>(c))) d += c;
        const bool opens_reference = d == "#ifdefPLAYGROUND_REFERENCE" || d == "#ifdefined(PLAYGROUND_REFERENCE)" ||
                                     d == "#ifdefinedPLAYGROUND_REFERENCE";
        if (!in_reference && opens_reference) {
            in_reference = true;
            depth = 0;
            out += "// The lesson's CPU reference (in the lesson, under #ifdef PLAYGROUND_REFERENCE).\n";
            continue;
        }
        if (in_reference) {
            if (d.rfind("#if", 0) == 0) ++depth;
            if (d.rfind("#endif", 0) == 0) {
                if (depth == 0) {
                    in_reference = false;
                    continue;
                }
                --depth;
            }
        }
        out += line + "\n";
    }
    return out;
}

// The helpers every exported program has: the header's fills (the playground's generator, so the inputs are the
// values the lesson shows), the comparison and the CUDA error check.
const char* kSupport = R"(// ---------------------------------------------------------------------------------------------------------
// Filling the inputs as the lesson's header says, with the values CUDA Playground gives them: splitmix64 seeded
// by `random(seed=S)`, every component of every element in turn; integers rounded and clamped to their type.
template <class C>
static C to_component(double v)
{
    if (!std::numeric_limits<C>::is_integer) return static_cast<C>(v);
    const double lo = static_cast<double>(std::numeric_limits<C>::lowest());
    const double hi = static_cast<double>(std::numeric_limits<C>::max());
    double r = std::nearbyint(v);
    if (std::isnan(r)) r = 0;
    if (r <= lo) return std::numeric_limits<C>::lowest();
    if (r >= hi) return std::numeric_limits<C>::max();
    return static_cast<C>(r);
}

template <class C>
static void fill_ramp(C* c, size_t elements, size_t per_element, double start, double step)
{
    for (size_t i = 0; i < elements; ++i)
        for (size_t k = 0; k < per_element; ++k) c[i * per_element + k] = to_component<C>(start + double(i) * step);
}

template <class C>
static void fill_constant(C* c, size_t components, double value)
{
    for (size_t i = 0; i < components; ++i) c[i] = to_component<C>(value);
}

// Comparing an output with what the reference (or the recording) expects: the largest absolute error over every
// component, and the components beyond the tolerance; NaN equals only NaN.
struct Check {
    double max_error = 0;
    unsigned long long mismatches = 0;
    char first[256] = "";
};

template <class C>
static void compare(Check& check, const char* name, const C* actual, const C* expected, size_t elements,
                    size_t per_element, double tolerance)
{
    for (size_t i = 0; i < elements * per_element; ++i) {
        const double a = double(actual[i]), e = double(expected[i]);
        double error = std::fabs(a - e);
        if (std::isnan(a) || std::isnan(e)) error = (std::isnan(a) && std::isnan(e)) ? 0 : INFINITY;
        else if (a == e) error = 0;
        if (error > check.max_error) check.max_error = error;
        if (error > tolerance) {
            if (check.mismatches++ == 0)
                std::snprintf(check.first, sizeof check.first, "%s[%zu] = %.9g, expected %.9g", name, i / per_element, a, e);
        }
    }
}

// Stops at a CUDA call that failed (not the kernel's own errors, which main() judges).
static inline void check_cuda(cudaError_t error, const char* call, int line)
{
    if (error == cudaSuccess) return;
    std::fprintf(stderr, "line %d: %s failed: %s (%s)\n", line, call, cudaGetErrorName(error), cudaGetErrorString(error));
    std::exit(1);
}
#define CHECK(call) check_cuda((call), #call, __LINE__)

// How the launch went: refused (the launch itself returned an error), fault (the kernel failed while it ran),
// hang (it was stopped after a time limit or a barrier some threads never reach), or it ran.
static inline const char* outcome_of(cudaError_t launched, cudaError_t finished)
{
    if (launched != cudaSuccess) return "refused";
    if (finished == cudaErrorLaunchTimeout) return "hang";
    if (finished != cudaSuccess) return "fault";
    return "ran";
}
)";

// splitmix64 and the random fill, for a lesson that has a `random(...)` buffer.
const char* kSupportRandom = R"(
static inline unsigned long long splitmix64(unsigned long long& state)
{
    unsigned long long z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

template <class C>
static void fill_random(C* c, size_t components, unsigned long long seed, double min, double max)
{
    unsigned long long state = seed;
    const bool real = !std::numeric_limits<C>::is_integer;
    const double lo = real ? min : std::ceil(min), hi = real ? max : std::floor(max);
    for (size_t i = 0; i < components; ++i) {
        const double u = double(splitmix64(state) >> 11) * 0x1.0p-53;
        c[i] = to_component<C>(real ? lo + u * (hi - lo) : std::min(hi, lo + std::floor(u * (hi - lo + 1))));
    }
}
)";

struct Emitter {
    std::string text;
    void line(const std::string& s = {}) { text += s + "\n"; }
};

// The bytes as a C array of 32-bit words, four bytes to a word with the first in its low 8 bits, zero-padded to a
// whole word. A compiler reads a quarter as many numbers: a photo's 960000 bytes built with nvcc in 2.2 s instead
// of 5.7 (cudafe++, cicc and the host compiler each parse the array). main() copies them out with memcpy, which
// gives the bytes back in order on a little-endian host: every host CUDA runs on (x86-64, AArch64, ppc64le).
std::string embedded_array(const std::string& name, const std::vector<std::byte>& bytes) {
    const size_t words = std::max<size_t>((bytes.size() + 3) / 4, 1);
    std::string out = "#include <cstdint>\n"
                      "#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__\n"
                      "#error \"these words hold their bytes in little-endian order\"\n"
                      "#endif\n"
                      "static const std::uint32_t " + name + "[" + std::to_string(words) + "] = {\n";
    char buf[16];
    for (size_t w = 0; w < words; ++w) {
        uint32_t v = 0;
        for (size_t k = 0; k < 4 && 4 * w + k < bytes.size(); ++k)
            v |= std::to_integer<uint32_t>(bytes[4 * w + k]) << (8 * k);
        std::snprintf(buf, sizeof buf, "0x%08x,", unsigned(v));
        out += buf;
        if (w % 12 == 11 || w + 1 == words) out += '\n';
    }
    return out + "};\n";
}

std::string header_init_text(const BufferSpec& b) {
    const BufferInit& i = b.init;
    switch (i.kind) {
        case BufferInit::Kind::Zeros: return "zeros";
        case BufferInit::Kind::Constant: return "constant(" + c_double(i.constant) + ")";
        case BufferInit::Kind::Random:
            return "random(seed=" + std::to_string(i.seed) + ", min=" + c_double(i.min) + ", max=" + c_double(i.max) + ")";
        case BufferInit::Kind::Ramp: return "ramp(start=" + c_double(i.start) + ", step=" + c_double(i.step) + ")";
        case BufferInit::Kind::Image: return "image(\"" + i.image + "\")";
        case BufferInit::Kind::Data: return "data(\"" + i.data + "\")";
    }
    return "";
}

// A lesson can be exported when it has a usable header and no main() of its own.
Result<bool> check_exportable(const KernelFile& file) {
    if (const int line = main_function_line(file.source); line > 0)
        return make_error(ErrorKind::Unsupported,
                          "`" + file.path.filename().string() + "` already has its own main() (line " +
                              std::to_string(line) + "): it is a program",
                          "share the program as it is: `cuda-playground run FILE` runs it as written (with "
                          "`--as-program` when it also has a header)");

    if (!file.spec.has_metadata)
        return make_error(ErrorKind::Metadata, "`" + file.path.filename().string() + "` has no playground header",
                          "export a lesson (a file with a /*@playground ... */ header); `describe` proposes one");
    if (!file.usable()) {
        std::string first = "it has no __global__ function";
        for (const Diagnostic& d : file.diagnostics)
            if (d.severity == Severity::Error) {
                first = d.str();
                break;
            }
        return make_error(ErrorKind::Metadata, "`" + file.path.filename().string() + "` cannot be exported: " + first,
                          "fix the errors `cuda-playground run` lists, then export it");
    }
    return true;
}

}  // namespace

Result<LessonExport> export_lesson(const KernelFile& file, const ResolvedRun& run,
                                   const std::map<std::string, HostBuffer>& initial) {
    if (auto ok = check_exportable(file); !ok) return ok.error();

    LessonExport out;
    out.program = program_name(file);
    const KernelSpec& spec = file.spec;
    if (!spec.compare.empty())
        out.left_out.push_back("the compare variants (" + std::to_string(spec.compare.size()) +
                               "): the program runs the lesson's own kernel");
    if (spec.streams) out.left_out.push_back("the `streams:` run: the program launches once, on the default stream");
    if (spec.devices.enabled()) out.left_out.push_back("the `devices:` split: the program runs on one GPU");

    // The kernel's text: as written, with the `constant` lines' values in their declarations.
    std::string source = program_source(file.source);
    auto filled = fill_constants_in(file, run.params, source);
    if (!filled) return filled.error();
    source = *filled;

    // The launches: each step, or the one kernel.
    struct Launch {
        std::string kernel;
        const KernelSignature* signature = nullptr;
        Dim3 grid, block;
        uint32_t shared = 0;
        uint64_t repeat = 1;
        std::string grid_text, block_text;
    };
    std::vector<Launch> launches;
    if (!run.steps.empty()) {
        for (size_t i = 0; i < run.steps.size() && i < file.step_signatures.size(); ++i) {
            const ResolvedStep& s = run.steps[i];
            const StepSpec& st = spec.steps[i];
            launches.push_back({s.kernel, &file.step_signatures[i], s.grid, s.block, s.dynamic_shared_bytes, s.repeat,
                                st.grid_expr[0].empty() ? dims_text(spec.launch.grid_expr) : dims_text(st.grid_expr),
                                st.block_expr[0].empty() ? dims_text(spec.launch.block_expr) : dims_text(st.block_expr)});
        }
    } else {
        launches.push_back({file.signature->launch_name, &*file.signature, run.grid, run.block,
                            run.dynamic_shared_bytes, 1, dims_text(spec.launch.grid_expr),
                            dims_text(spec.launch.block_expr)});
    }
    std::string kernels_text;
    for (const Launch& l : launches)
        if (kernels_text.find("`" + l.kernel + "`") == std::string::npos)
            kernels_text += (kernels_text.empty() ? "`" : ", `") + l.kernel + "`";

    // The element type each buffer's host vector holds: as the kernel's signature spells it (a `char*` takes a
    // `char*`, whatever the header calls it), else the header's type in C.
    std::map<std::string, std::string> vector_type;
    for (const BufferSpec& b : spec.buffers) vector_type[b.name] = c_element_type(b.type);
    for (const Launch& l : launches)
        for (const SignatureParam& p : l.signature->params)
            if (p.is_pointer && file.buffer(p.name) && !p.base_type.empty()) vector_type[p.name] = p.base_type;

    const bool recorded = !spec.results.empty();
    const bool has_reference = !spec.reference.empty() && file.reference_fn;
    const std::string against = recorded ? "the recorded result" : "the CPU reference";
    const std::string name = out.program;

    Emitter e;
    e.line("// " + spec.title + ": the CUDA Playground lesson `" + file.path.filename().string() +
           "` as a standalone CUDA program.");
    e.line("//");
    e.line("// Build and run it:  cmake -B build && cmake --build build && ./build/" + name);
    e.line("//              or:  nvcc -O2 -o " + name + " " + name + ".cu && ./" + name);
    e.line("// main() (at the end) fills the lesson's inputs as its header says, launches " + kernels_text +
           " with the header's");
    e.line("// grid and block, copies the outputs back and checks them against " + against +
           ", printing the verdict");
    e.line("// `cuda-playground run` prints for the lesson. It also runs as written under the playground:");
    e.line("// cuda-playground run " + name + ".cu");
    for (const std::string& l : out.left_out) e.line("// Not here: " + l + ".");
    e.line("#include <cuda_runtime.h>");
    e.line();
    e.line("#include <cmath>");
    e.line("#include <cstdio>");
    e.line("#include <cstdlib>");
    e.line("#include <cstring>");
    e.line("#include <limits>");
    e.line("#include <vector>");
    e.line();

    // Embedded data: images, data files, recorded results.
    std::vector<ExportedFile> data_files;
    // The arrays are named after their buffers: NAME_initial (an image's or data file's bytes), NAME_recorded.
    auto embed = [&](const std::string& key, const std::string& array) -> Result<bool> {
        auto it = initial.find(key);
        if (it == initial.end())
            return make_error(ErrorKind::Internal, "the contents of `" + key + "` were not given to the export");
        const std::string header = name + "_" + array + ".h";
        data_files.push_back({header, "// The " + std::to_string(it->second.bytes.size()) + " bytes of `" + key +
                                          "` as the lesson had them, for " + name +
                                          ".cu: four to a 32-bit word, the first in its low 8 bits.\n" +
                                          embedded_array(array, it->second.bytes)});
        e.line("#include \"" + header + "\"  // " + key + "'s contents, " + std::to_string(it->second.bytes.size()) +
               " bytes");
        return true;
    };
    for (const BufferSpec& b : spec.buffers)
        if (b.init.kind == BufferInit::Kind::Image || b.init.kind == BufferInit::Kind::Data)
            if (auto a = embed(b.name, b.name + "_initial"); !a) return a.error();
    for (const ResultSpec& r : spec.results)
        if (auto a = embed(r.buffer + ".result", r.buffer + "_recorded"); !a) return a.error();
    if (!data_files.empty()) e.line();
    e.text += source;
    if (!e.text.empty() && e.text.back() != '\n') e.line();
    e.line();
    e.text += kSupport;
    if (std::any_of(spec.buffers.begin(), spec.buffers.end(),
                    [](const BufferSpec& b) { return b.init.kind == BufferInit::Kind::Random; }))
        e.text += kSupportRandom;
    e.line();

    // The expect clauses, as data.
    if (!spec.expect_clauses.empty()) {
        e.line("// The lesson is buggy on purpose: `expect: " + [&] {
            std::string t;
            for (const ExpectClause& c : spec.expect_clauses) t += (t.empty() ? "" : "; ") + c.str();
            return t;
        }() + "`.");
        e.line("struct Expected {");
        e.line("    const char* outcome;  // mismatch, fault, refused, hang or undefined");
        e.line("    const char* backend;  // \"cpu\" (the playground's CPU emulation), \"cuda\" or \"\": any");
        e.line("    int from_cc, before_cc;  // compute capability 10 * major + minor; 0: any");
        e.line("};");
        e.line("static const Expected kExpected[] = {");
        for (const ExpectClause& c : spec.expect_clauses)
            e.line("    {" + c_literal(expected_outcome_name(c.outcome)) + ", " + c_literal(c.backend) + ", " +
                   std::to_string(c.from_cc) + ", " + std::to_string(c.before_cc) + "},");
        e.line("};");
        e.line();
    }

    e.line("int main()");
    e.line("{");
    e.line("    cudaDeviceProp lesson_device;");
    e.line("    CHECK(cudaGetDeviceProperties(&lesson_device, 0));");
    e.line("    // A guard zone after each buffer on a GPU, which lets a write past a buffer's end pass silently: the");
    e.line("    // program looks at it after the launch, as CUDA Playground does (its CPU emulation checks every access).");
    e.line("    const size_t guard = std::strstr(lesson_device.name, \"CPU emulation\") ? 0 : 65536;");
    e.line("    std::vector<unsigned char> guard_bytes(guard, 0xA5), guard_after(guard);");
    e.line();
    // Params.
    if (!spec.params.empty()) e.line("    // The lesson's parameters, at the header's values.");
    std::set<std::string> passed;  // the params a kernel or the reference takes
    for (const Launch& l : launches)
        for (const SignatureParam& p : l.signature->params) passed.insert(p.name);
    if (has_reference)
        for (const SignatureParam& p : file.reference_fn->params) passed.insert(p.name);
    for (const ParamSpec& p : spec.params) {
        auto v = run.params.find(p.name);
        if (v == run.params.end()) continue;
        e.line(std::string("    ") + (passed.count(p.name) ? "" : "[[maybe_unused]] ") + "const " + c_scalar_type(p.type) + " " + p.name + " = " + c_scalar_value(p.type, v->second) +
               ";  // param " + p.name + " = " + p.default_expr +
               (p.min && p.max ? " range " + shortest(*p.min) + ".." + shortest(*p.max) : ""));
    }
    e.line();
    // Host buffers.
    e.line("    // The buffers, filled as the header says.");
    for (const BufferSpec& b : spec.buffers) {
        auto count_it = run.buffer_counts.find(b.name);
        if (count_it == run.buffer_counts.end()) continue;
        const uint64_t count = count_it->second;
        const ElemTypeInfo& info = elem_info(b.type);
        const std::string comp = c_component_type(b.type);
        const std::string components = b.name + ".size() * " + std::to_string(info.components);
        const std::string as_components = "reinterpret_cast<" + comp + "*>(" + b.name + ".data())";
        e.line("    std::vector<" + vector_type[b.name] + "> " + b.name + "(" + std::to_string(count) +
               "ull);  // buffer " + b.name + ": " + info.name + "[" + b.count_expr + "] " +
               direction_name(b.direction) + " " + header_init_text(b));
        const BufferInit& i = b.init;
        switch (i.kind) {
            case BufferInit::Kind::Zeros:
                e.line("    std::memset(" + b.name + ".data(), 0, " + b.name + ".size() * sizeof " + b.name + "[0]);");
                break;
            case BufferInit::Kind::Constant:
                e.line("    fill_constant(" + as_components + ", " + components + ", " + c_double(i.constant) + ");");
                break;
            case BufferInit::Kind::Random:
                e.line("    fill_random(" + as_components + ", " + components + ", " + std::to_string(i.seed) + "ull, " +
                       c_double(i.min) + ", " + c_double(i.max) + ");");
                break;
            case BufferInit::Kind::Ramp:
                e.line("    fill_ramp(" + as_components + ", " + b.name + ".size(), " + std::to_string(info.components) +
                       ", " + c_double(i.start) + ", " + c_double(i.step) + ");");
                break;
            case BufferInit::Kind::Image:
            case BufferInit::Kind::Data:
                e.line("    std::memcpy(" + b.name + ".data(), " + b.name + "_initial, " + b.name + ".size() * sizeof " +
                       b.name + "[0]);");
                break;
        }
    }
    e.line();
    // Device buffers.
    e.line("    // On the device: every buffer allocated and copied in (outputs too: they start as the header says).");
    for (const BufferSpec& b : spec.buffers) {
        if (!run.buffer_counts.count(b.name)) continue;
        const std::string& t = vector_type[b.name];
        e.line("    " + t + "* d_" + b.name + " = nullptr;");
        e.line("    CHECK(cudaMalloc(&d_" + b.name + ", " + b.name + ".size() * sizeof(" + t + ") + guard));");
        e.line("    CHECK(cudaMemcpy(d_" + b.name + ", " + b.name + ".data(), " + b.name + ".size() * sizeof(" + t +
               "), cudaMemcpyHostToDevice));");
        e.line("    if (guard) CHECK(cudaMemcpy(reinterpret_cast<char*>(d_" + b.name + ") + " + b.name + ".size() * sizeof(" +
               t + "), guard_bytes.data(), guard, cudaMemcpyHostToDevice));");
    }
    e.line();
    // Launches.
    e.line("    // The launch" + std::string(launches.size() > 1 || launches[0].repeat > 1 ? "es, in order" : "") +
           ", timed between two CUDA events.");
    e.line("    cudaEvent_t event_start, event_stop;");
    e.line("    CHECK(cudaEventCreate(&event_start));");
    e.line("    CHECK(cudaEventCreate(&event_stop));");
    e.line("    cudaError_t launched = cudaSuccess;");
    e.line("    CHECK(cudaEventRecord(event_start));");
    for (size_t k = 0; k < launches.size(); ++k) {
        const Launch& l = launches[k];
        std::string args;
        for (const SignatureParam& p : l.signature->params) {
            std::string a = p.name;
            if (const BufferSpec* b = file.buffer(p.name)) {
                a = "d_" + p.name;
                if (b->offset) a += " + " + std::to_string(b->offset);
            }
            args += (args.empty() ? "" : ", ") + a;
        }
        const std::string indent = l.repeat > 1 ? "        " : "    ";
        if (launches.size() > 1) e.line("    // Step " + std::to_string(k + 1) + ": `" + l.kernel + "`.");
        e.line(k == 0 ? "    {" : "    if (launched == cudaSuccess) {");
        e.line("        const dim3 launch_grid(" + dims(l.grid) + ");    // grid: " + l.grid_text);
        e.line("        const dim3 launch_block(" + dims(l.block) + ");  // block: " + l.block_text);
        if (l.repeat > 1)
            e.line("        for (int rep = 0; rep < " + std::to_string(l.repeat) + " && launched == cudaSuccess; ++rep) {");
        e.line(indent + "    " + l.kernel + "<<<launch_grid, launch_block, " + std::to_string(l.shared) + ">>>(" + args + ");");
        e.line(indent + "    launched = cudaGetLastError();");
        if (l.repeat > 1) e.line("        }");
        e.line("    }");
    }
    e.line("    cudaError_t finished = cudaSuccess;");
    e.line("    if (launched == cudaSuccess) finished = cudaDeviceSynchronize();");
    e.line("    const char* overrun = nullptr;  // the first buffer whose guard zone a thread wrote");
    e.line("    if (guard && launched == cudaSuccess && finished == cudaSuccess) {");
    for (const BufferSpec& b : spec.buffers) {
        if (!run.buffer_counts.count(b.name)) continue;
        const std::string& t = vector_type[b.name];
        e.line("        CHECK(cudaMemcpy(guard_after.data(), reinterpret_cast<char*>(d_" + b.name + ") + " + b.name +
               ".size() * sizeof(" + t + "), guard, cudaMemcpyDeviceToHost));");
        e.line("        if (!overrun && guard_after != guard_bytes) overrun = " + c_literal(b.name) + ";");
    }
    e.line("    }");
    e.line("    const char* outcome = overrun ? \"fault\" : outcome_of(launched, finished);");
    e.line("    bool checked = false;");
    e.line("    Check check;");
    e.line("    if (launched != cudaSuccess) {");
    e.line("        std::printf(\"launch:   refused: %s (%s)\\n\", cudaGetErrorName(launched), cudaGetErrorString(launched));");
    e.line("    } else if (overrun) {");
    e.line("        std::printf(\"launch:   failed: a thread wrote past the end of `%s` (its guard zone changed; a GPU lets \"");
    e.line("                    \"such a write pass)\\n\", overrun);");
    e.line("    } else if (finished != cudaSuccess) {");
    e.line("        std::printf(\"launch:   failed: %s (%s)\\n\", cudaGetErrorName(finished), cudaGetErrorString(finished));");
    e.line("    } else {");
    e.line("        float ms = 0;");
    e.line("        CHECK(cudaEventRecord(event_stop));");
    e.line("        CHECK(cudaEventSynchronize(event_stop));");
    e.line("        CHECK(cudaEventElapsedTime(&ms, event_start, event_stop));");
    std::string launch_summary;
    for (const Launch& l : launches)
        launch_summary += (launch_summary.empty() ? "" : "; ") + l.kernel + " grid " + std::to_string(l.grid.x) + "x" +
                          std::to_string(l.grid.y) + "x" + std::to_string(l.grid.z) + ", block " +
                          std::to_string(l.block.x) + "x" + std::to_string(l.block.y) + "x" +
                          std::to_string(l.block.z) + (l.repeat > 1 ? " (" + std::to_string(l.repeat) + " times)" : "");
    e.line("        std::printf(\"launch:   %s on %s\\n\", " + c_literal(launch_summary) + ", lesson_device.name);");
    e.line("        std::printf(\"time:     %.4f ms (CUDA events)\\n\", ms);");
    e.line();
    // Outputs back, expected contents, comparison.
    std::vector<const BufferSpec*> outputs;
    for (const BufferSpec& b : spec.buffers)
        if (b.direction != Direction::In && run.buffer_counts.count(b.name)) outputs.push_back(&b);
    e.line("        // The outputs back from the device.");
    for (const BufferSpec* b : outputs) {
        const std::string& t = vector_type[b->name];
        e.line("        std::vector<" + t + "> " + b->name + "_out(" + b->name + ".size());");
        e.line("        CHECK(cudaMemcpy(" + b->name + "_out.data(), d_" + b->name + ", " + b->name + ".size() * sizeof(" +
               t + "), cudaMemcpyDeviceToHost));");
    }
    std::set<std::string> judged;  // the outputs the check compares
    if (recorded) {
        e.line();
        e.line("        // What the recorded launch left in each buffer (the lesson's `result` lines).");
        for (const ResultSpec& r : spec.results) {
            const BufferSpec* b = file.buffer(r.buffer);
            if (!b) continue;
            const std::string& t = vector_type[r.buffer];
            e.line("        std::vector<" + t + "> " + r.buffer + "_expected(" + r.buffer + ".size());");
            e.line("        std::memcpy(" + r.buffer + "_expected.data(), " + r.buffer + "_recorded, " + r.buffer +
                   ".size() * sizeof(" + t + "));");
            judged.insert(r.buffer);
        }
    } else if (has_reference) {
        e.line();
        e.line("        // The lesson's CPU reference, on copies of the initial contents.");
        std::string args;
        for (const SignatureParam& p : file.reference_fn->params) {
            if (const BufferSpec* b = file.buffer(p.name)) {
                e.line("        std::vector<" + vector_type[b->name] + "> " + p.name + "_expected = " + p.name + ";");
                args += (args.empty() ? "" : ", ") + p.name + "_expected.data()";
                if (b->direction != Direction::In) judged.insert(b->name);
            } else {
                args += (args.empty() ? "" : ", ") + p.name;
            }
        }
        e.line("        " + file.reference_fn->name + "(" + args + ");");
    }
    if (!judged.empty()) {
        e.line();
        e.line("        const double tolerance = " + shortest(spec.tolerance) + ";  // tolerance: the largest error allowed per component");
        for (const BufferSpec* b : outputs) {
            if (!judged.count(b->name)) continue;
            const std::string comp = c_component_type(b->type);
            e.line("        compare(check, " + c_literal(b->name) + ", reinterpret_cast<const " + comp + "*>(" + b->name +
                   "_out.data()), reinterpret_cast<const " + comp + "*>(" + b->name + "_expected.data()), " + b->name +
                   ".size(), " + std::to_string(elem_info(b->type).components) + ", tolerance);");
        }
        e.line("        checked = true;");
        e.line("        if (check.mismatches == 0)");
        e.line("            std::printf(\"check:    Matches " + against + " (max error %g)\\n\", check.max_error);");
        e.line("        else");
        e.line("            std::printf(\"check:    Differs from " + against +
               ": %llu mismatches, max error %g. First: %s\\n\", check.mismatches, check.max_error, check.first);");
    } else {
        e.line("        std::printf(\"check:    Not checked: there is no CPU reference.\\n\");");
    }
    e.line("    }");
    e.line("    if (checked) outcome = check.mismatches == 0 ? \"verified\" : \"mismatch\";");
    e.line();
    // Verdict and exit status.
    if (spec.expect_clauses.empty()) {
        e.line("    if (std::strcmp(outcome, \"verified\") == 0) std::printf(\"verified\\n\");");
        e.line("    return std::strcmp(outcome, \"verified\") == 0 || std::strcmp(outcome, \"ran\") == 0 ? 0");
        e.line("           : std::strcmp(outcome, \"mismatch\") == 0                                ? 2");
        e.line("                                                                                 : 1;");
    } else {
        e.line("    // The lesson's verdict: the first clause of `expect:` that applies to this device.");
        e.line("    const char* backend = std::strstr(lesson_device.name, \"CPU emulation\") ? \"cpu\" : \"cuda\";");
        e.line("    const int cc = lesson_device.major * 10 + lesson_device.minor;");
        e.line("    const Expected* expected = nullptr;");
        e.line("    for (const Expected& x : kExpected) {");
        e.line("        if (x.backend[0] && std::strcmp(x.backend, backend) != 0) continue;");
        e.line("        if ((x.from_cc && cc < x.from_cc) || (x.before_cc && cc >= x.before_cc)) continue;");
        e.line("        expected = &x;");
        e.line("        break;");
        e.line("    }");
        e.line("    int status = 0;");
        e.line("    if (!expected) {");
        e.line("        std::printf(\"lesson:   Buggy on purpose; no clause of its `expect:` line is about this device: \"");
        e.line("                    \"the outcome (%s) is not judged.\\n\", outcome);");
        e.line("    } else if (std::strcmp(expected->outcome, \"undefined\") == 0) {");
        e.line("        std::printf(\"lesson:   Buggy on purpose: here its result is undefined behaviour; this run gave: %s.\\n\",");
        e.line("                    outcome);");
        e.line("    } else {");
        e.line("        const char* article = std::strcmp(expected->outcome, \"refused\") == 0 ? \"a refused launch\" : nullptr;");
        e.line("        if (std::strcmp(expected->outcome, outcome) == 0) {");
        e.line("            std::printf(\"lesson:   Buggy on purpose: it must fail with %s%s, and it did (failed as expected).\\n\",");
        e.line("                        article ? \"\" : \"a \", article ? article : expected->outcome);");
        e.line("        } else {");
        e.line("            std::printf(\"lesson:   Buggy on purpose: it must fail with %s%s, but the outcome was: %s \"");
        e.line("                        \"(the bug no longer shows as the lesson says).\\n\",");
        e.line("                        article ? \"\" : \"a \", article ? article : expected->outcome, outcome);");
        e.line("            status = 2;");
        e.line("        }");
        e.line("    }");
        if (!spec.learn.empty()) e.line("    std::printf(\"learn:    %s\\n\", " + c_literal(spec.learn) + ");");
        e.line("    return status;");
    }
    e.line("}");

    out.files.push_back({name + ".cu", e.text});
    for (ExportedFile& f : data_files) out.files.push_back(std::move(f));
    // The lesson's own headers, as they are.
    const LocalIncludes includes = resolve_local_includes(file.source, file.path.string());
    for (const LocalHeader& h : includes.headers) out.files.push_back({h.name, h.contents});

    std::string cmake;
    cmake += "# Builds " + name + ".cu, exported from the CUDA Playground lesson `" + file.path.filename().string() +
             "`, with nvcc.\n";
    cmake += "#   cmake -B build && cmake --build build && ./build/" + name + "\n";
    cmake += "# The GPU of this machine by default; choose others with -DCMAKE_CUDA_ARCHITECTURES=\"80;90\".\n";
    cmake += "cmake_minimum_required(VERSION 3.24)\n";
    cmake += "if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})\n";
    cmake += "  set(CMAKE_CUDA_ARCHITECTURES native)\n";
    cmake += "endif()\n";
    cmake += "project(" + name + " LANGUAGES CXX CUDA)\n";
    cmake += "set(CMAKE_CUDA_STANDARD 17)\n";
    cmake += "set(CMAKE_CUDA_STANDARD_REQUIRED ON)\n";
    cmake += "if(NOT CMAKE_BUILD_TYPE)\n  set(CMAKE_BUILD_TYPE Release)\nendif()\n";
    cmake += "add_executable(" + name + " " + name + ".cu)\n";
    out.files.push_back({"CMakeLists.txt", cmake});
    return out;
}

Result<LessonExport> export_lesson(const KernelFile& file, const RunChoices& choices) {
    if (auto ok = check_exportable(file); !ok) return ok.error();
    Engine engine(make_compile_only_backend("an export only reads the lesson"));
    KernelSession session(engine);
    session.set_kernel(file);
    RunChoices every_step = choices;
    every_step.until_step.reset();  // the program makes every launch
    session.set_choices(every_step);
    auto run = session.resolve();
    if (!run) return run.error();
    std::map<std::string, HostBuffer> initial;
    for (const BufferSpec& b : file.spec.buffers) {
        if (b.init.kind != BufferInit::Kind::Image && b.init.kind != BufferInit::Kind::Data) continue;
        auto filled = session.host_input(b, *run);
        if (!filled) return filled.error();
        initial[b.name] = **filled;
    }
    for (const ResultSpec& r : file.spec.results) {
        const BufferSpec* b = file.buffer(r.buffer);
        auto data = run->results.find(r.buffer);
        auto count = run->buffer_counts.find(r.buffer);
        if (!b || data == run->results.end() || !data->second.bytes || count == run->buffer_counts.end()) continue;
        HostBuffer buffer;
        buffer.type = b->type;
        const size_t bytes = count->second * elem_info(b->type).size;
        if (data->second.bytes->size() < bytes)
            return make_error(ErrorKind::UserInput, "the recorded result of `" + r.buffer + "` is shorter than the buffer",
                              "save the launch again");
        buffer.bytes.assign(data->second.bytes->begin(), data->second.bytes->begin() + std::ptrdiff_t(bytes));
        initial[r.buffer + ".result"] = std::move(buffer);
    }
    return export_lesson(file, *run, initial);
}

Result<std::filesystem::path> write_lesson_export(const LessonExport& exported, const std::filesystem::path& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
        return make_error(ErrorKind::Io, "could not make the folder `" + dir.string() + "`: " + ec.message(),
                          "choose a folder you can write to with --out DIR");
    for (const ExportedFile& f : exported.files) {
        const std::filesystem::path path = dir / f.name;
        if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out << f.text;
        out.close();
        if (!out)
            return make_error(ErrorKind::Io, "could not write `" + path.string() + "`",
                              "check that the folder is writable and has room");
    }
    return dir / (exported.program + ".cu");
}

}  // namespace cp
