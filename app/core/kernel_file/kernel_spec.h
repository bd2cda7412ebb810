// The parsed form of a kernel file: its metadata header (title, buffers, parameters, launch, views,
// reference) and the kernel's __global__ signature. kernels/FORMAT.md documents the text format.
#pragma once

#include "core/types.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cp {

// Element types a buffer may hold. Vector types follow CUDA's layout (uchar4 is 4 bytes, float4 16).
enum class ElemType {
    Char, UChar, Short, UShort, Int, UInt, LongLong, ULongLong, Float, Double,
    UChar2, UChar3, UChar4, Int2, Int3, Int4, Float2, Float3, Float4, UInt2, UInt3, UInt4,
};
struct ElemTypeInfo {
    ElemType type;
    const char* name;       // CUDA spelling: "uchar4", "float", "unsigned int" is "uint"
    uint32_t size;          // bytes
    uint32_t components;    // 1..4
    bool is_float;          // component kind
    uint32_t component_size;
};
const ElemTypeInfo& elem_info(ElemType t);
std::optional<ElemType> parse_elem_type(const std::string& cuda_spelling);  // accepts "unsigned char" etc.
std::vector<std::string> elem_type_names();  // the canonical spellings, for "valid types are" messages

enum class ScalarType { Int, UInt, Float, Double };
const char* scalar_type_name(ScalarType t);
std::optional<ScalarType> parse_scalar_type(const std::string& cuda_spelling);  // "unsigned int" -> UInt
uint32_t scalar_size(ScalarType t);  // bytes of the kernel argument

enum class Direction { In, Out, InOut };
const char* direction_name(Direction d);

// How a buffer is filled before the first launch.
struct BufferInit {
    enum class Kind { Zeros, Constant, Random, Ramp, Image, Data } kind = Kind::Zeros;
    double constant = 0;               // Constant
    uint64_t seed = 1;                 // Random
    double min = 0, max = 1;           // Random
    double start = 0, step = 1;        // Ramp
    std::string image;                 // Image: path as written (relative to assets/ or the kernel file)
    std::string data;                  // Data: a file of raw elements next to the kernel file (data_file.h)
};

struct BufferSpec {
    std::string name;
    ElemType type = ElemType::Float;
    std::string count_expr;  // number of elements, an expression of parameters
    Direction direction = Direction::In;
    BufferInit init;
    int line = 0;
    uint64_t offset = 0;  // `offset K`: the kernel's pointer is K elements into the buffer (`d_in + RADIUS`)
};
// Whether `b` (may be null) is filled from an image (`init: image ...`).
inline bool is_image_buffer(const BufferSpec* b) { return b && b->init.kind == BufferInit::Kind::Image; }

struct ParamSpec {
    std::string name;
    ScalarType type = ScalarType::Int;
    std::string default_expr;                 // "1000", "src.width" (derived from an image: read-only)
    std::optional<double> min, max, step;     // range for sliders and validation
    std::vector<std::pair<std::string, int64_t>> choices;  // enum: label -> value
    bool derived = false;                     // default refers to an image attribute; not user-settable
    int line = 0;
};

// `result NAME: data("y.after.bin")`: the recorded contents an out/inout buffer must hold after the launch.
struct ResultSpec {
    std::string buffer;
    std::string file;  // as written, next to the kernel file
    int line = 0;
};

struct ViewSpec {
    enum class Kind { Image, Plot, Table } kind = Kind::Plot;
    std::string buffer;
    std::string width_expr, height_expr;      // Image
    std::string colormap = "gray";            // Image of scalars: gray, viridis, magma, coolwarm
    std::optional<double> range_min, range_max;  // fixed normalisation; min/max of data otherwise
    int line = 0;
};

struct LaunchSpec {
    std::string block_expr[3] = {"256", "1", "1"};
    std::string grid_expr[3] = {"1", "1", "1"};
    std::string shared_expr = "0";          // dynamic shared memory bytes
    std::vector<std::string> problem_expr;  // 1-3 expressions: the domain the grid should cover
    int line = 0;
};

// One parameter of the kernel's __global__ signature, as written in the source.
struct SignatureParam {
    std::string name;
    std::string type_text;  // "const float* __restrict__"
    bool is_pointer = false;
    std::string base_type;  // "float", "uchar4" (qualifiers stripped)
    int line = 0;
};
// Whether a pointer parameter points to const data (`const float*`, `float const*`): the kernel only reads it.
inline bool points_to_const(const SignatureParam& p) {
    return p.type_text.substr(0, p.type_text.find('*')).find("const") != std::string::npos;
}

struct KernelSignature {
    std::string name;         // the function's name: `reduce`
    std::string launch_name;  // what compilers are asked for: `reduce` or an instantiation `reduce<float, 256>`
    int line = 0;
    std::vector<SignatureParam> params;
};

// One step of a sequence (`step:` lines, run in order over the file's buffers): a kernel of the file and its
// own launch; a setting it leaves out is the file's (`block:`, `grid:`, `shared:`), the repeat count 1.
struct StepSpec {
    std::string kernel;  // a name or a template's instantiation, as `kernel:` takes it
    int line = 0, column = 0;
    std::string block_expr[3], grid_expr[3];  // [0] empty: the file's
    std::string shared_expr;                  // empty: the file's
    std::string repeat_expr = "1";            // launches in a row, each seeing the previous one's results
};

// `streams: S over PARAM [chunks=C]`: the launch also runs split into C chunks along the size parameter PARAM,
// chunk k on stream k % S, each chunk's copies in, kernel and copies out queued on its stream (session_streams.cpp).
struct StreamsSpec {
    std::string streams_expr;  // S: 1..16, a number or an expression of params (a slider: `streams over n`)
    std::string param;         // the size parameter the chunks split
    std::string chunks_expr;   // C >= S; empty: 4 * S
    int line = 0, column = 0;
};
constexpr int kMaxStreams = 16;
constexpr int kMaxStreamChunks = 1024;
// `devices: all over n` (or `devices: 2 over n`): the run is split along the size parameter `n` into one part
// per device, each device running the kernel on its part (core/session/device_set.h).
struct DeviceSplitSpec {
    int max_devices = 0;  // 0: every device the machine has; else at most this many
    std::string param;    // the size parameter the parts divide; empty: no split
    int line = 0, column = 0;
    bool enabled() const { return !param.empty(); }
    std::string str() const;  // "all over n", "2 over n"
};

// `grade ...` lines: the lesson is an assignment. Its hidden test cases and how submissions are scored; the
// students' copy (`cuda-playground export --for-students`) leaves these lines out (GradeSpec::lines).
struct GradeCase {
    std::string name;
    // `name = value` as `--set` takes them (a param's number or enum label, an image buffer's picture), in order.
    std::vector<std::pair<std::string, std::string>> sets;
    // `seed = N` among them: every random buffer's seed mixed with N (RunChoices::seed); none: the header's.
    std::optional<uint64_t> seed;
    int line = 0, column = 0;
};
struct GradeSpec {
    std::vector<GradeCase> cases;
    std::optional<double> tolerance;  // `grade tolerance:`; none: the header's `tolerance`
    double time_limit_s = 10;         // `grade time: 10 s`, per case
    bool sanitize = true;             // `grade sanitize: yes|no`
    int correct_points = 100, speed_points = 0;  // `grade score: correct 80, speed 20` (they add up to 100)
    std::vector<int> lines;           // every `grade` line, in order (the students' copy has none of them)
    bool enabled() const { return !lines.empty(); }
};

// What a buggy-on-purpose lesson must show (`expect:`); None for a lesson that must verify.
// Undefined: on the backends and devices its clause names the bug is undefined behaviour (any result is luck, and
// is not held against the lesson); only in a clause with `on BACKEND`.
enum class ExpectedOutcome { None, Mismatch, Fault, Refused, Hang, Undefined };
const char* expected_outcome_name(ExpectedOutcome e);  // "mismatch", "fault", ..., "undefined"

// One clause of `expect:` ("hang on cpu", "undefined on cuda from sm_70"): the outcome where the clause applies.
struct ExpectClause {
    ExpectedOutcome outcome = ExpectedOutcome::None;
    std::string backend;               // "cpu", "cuda"; empty: every backend
    int from_cc = 0, before_cc = 0;    // compute capability as 10 * major + minor (70: sm_70); 0: any
    // Whether it applies to a run on `backend` with compute capability `cc` (0: the backend has none, the CPU's).
    bool applies(const std::string& run_backend, int cc) const;
    std::string str() const;           // as written: "undefined on cuda from sm_70"
};

// The names `show:` accepts: the window's panels (their titles) and `Compare` (the Output panel's side-by-side
// columns of a lesson with `compare:`). Kept here, not in the UI, so `check` and the CLI refuse a wrong name too;
// a UI test checks each is a panel's title.
const std::vector<std::string>& showable_panels();

struct KernelSpec {
    // Describing text
    std::string title;
    std::string about;  // one paragraph: what this kernel teaches
    std::string category = "Uncategorised";
    std::vector<std::string> tags;

    std::vector<ParamSpec> params;
    std::vector<BufferSpec> buffers;
    LaunchSpec launch;
    std::vector<ViewSpec> views;
    std::string reference;   // the in-file CPU reference function (reference_section.h); empty: none
    // `result NAME: data("file")`: what an out/inout buffer must hold after the launch, recorded (a launch of a
    // program saved as a lesson, program_lesson.h); it holds for the params' written values. Instead of `reference:`.
    std::vector<ResultSpec> results;
    double tolerance = 0;    // max abs error allowed per component
    std::string traffic_expr;  // bytes one launch moves; empty: sum of buffer sizes by direction
    ExpectedOutcome expect = ExpectedOutcome::None;  // `expect:` buggy on purpose: its first clause's failure
    // `expect: hang on cpu`: the one backend the bug shows the same way on (undefined behaviour elsewhere, e.g. a
    // barrier that returned threads never reach); empty: every backend. (The first clause's backend.)
    std::string expect_backend;
    // Every clause of `expect:`, `;` between them ("hang on cpu; undefined on cuda"): a run is judged by the first
    // that applies to its backend and compute capability, and not judged where none does.
    std::vector<ExpectClause> expect_clauses;
    std::string learn;                               // `learn:` what the student should take from the bug
    std::vector<StepSpec> steps;                     // `step:` lines; empty: the one kernel runs once
    std::optional<StreamsSpec> streams;              // `streams:`; none: one stream
    DeviceSplitSpec devices;                         // `devices:`; not enabled(): one device runs it all
    // `show:` the panels that make the lesson's point (names from showable_panels(), as spelled there), in the
    // order given: the window brings them to the front and gives them room. Empty: the default layout.
    std::vector<std::string> show;
    GradeSpec grade;  // `grade ...` lines: an assignment's hidden cases and scoring; !enabled(): not one

    // `kernel:` the __global__ function to run when the file has several, or the instantiation of a
    // template kernel (`reduce<float, 256>`): a C++ name expression. Empty: the file's only kernel.
    std::string kernel;
    int kernel_line = 0;

    // `compare:` the variants this lesson is compared with (run on the same inputs, each checked, shown side by
    // side): other kernels of the file (a name or an instantiation) or other files (`matrix/matmul_tiled`,
    // `tiled.cu`: a name with a `/` or ending in `.cu`). Empty: none.
    std::vector<std::string> compare;
    int compare_line = 0;

    bool has_metadata = false;  // false for a plain .cu file without a header
    int header_first_line = 0, header_last_line = 0;
};

// Whether a run's outputs are checked against something: the file's CPU reference or its recorded results.
inline bool has_check(const KernelSpec& spec) { return !spec.reference.empty() || !spec.results.empty(); }

// A kernel file: its text, parsed metadata and signature, and every problem found while reading it.
struct KernelFile {
    std::filesystem::path path;
    std::string source;
    std::string compile_source;  // what the compilers get: `source` less any host program (host_code.h)
    KernelSpec spec;
    std::optional<KernelSignature> signature;
    std::optional<KernelSignature> reference_fn;  // the function `reference:` names, when found
    // With steps: each step's kernel, in order (signature is then the first step's); empty otherwise.
    std::vector<KernelSignature> step_signatures;
    std::vector<Diagnostic> diagnostics;  // metadata errors/warnings and signature mismatches

    bool usable() const { return !has_errors(diagnostics) && signature.has_value(); }
    const BufferSpec* buffer(const std::string& name) const;
    const ParamSpec* param(const std::string& name) const;
};

}  // namespace cp
