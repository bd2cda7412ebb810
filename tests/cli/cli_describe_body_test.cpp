// `describe` reads the kernel's body (tests/data/pasted/course_*.cu: course-notes style kernels, no const, no
// header): the header it proposes is checked line by line for three kernels, and for every file it runs
// unchanged on the CPU backend, on non-zero inputs, and its output matches a reference written here.
#include "cli_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>
#include "test_paths.h"

using cp::test::cli;
using cp::test::TempDir;

namespace {

std::string pasted(const std::string& name) {
    return std::string(CP_SOURCE_DIR) + "/tests/data/pasted/" + name;
}

std::string describe(const std::string& name) {
    auto r = cli({"describe", pasted(name)});
    EXPECT_EQ(r.exit_code, 0) << r.both();
    return r.out;
}

// The header's lines that are not comments, in order.
std::vector<std::string> key_lines(const std::string& header) {
    std::vector<std::string> out;
    std::istringstream in(header);
    for (std::string line; std::getline(in, line);)
        if (!line.empty() && line[0] != '#' && line.rfind("about:", 0) != 0) out.push_back(line);
    return out;
}

std::vector<std::string> guess_lines(const std::string& header) {
    std::vector<std::string> out;
    std::istringstream in(header);
    for (std::string line; std::getline(in, line);)
        if (line.rfind("# guess: ", 0) == 0) out.push_back(line);
    return out;
}

bool any_line_has(const std::vector<std::string>& lines, const std::string& part) {
    for (const auto& l : lines)
        if (l.find(part) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST(DescribeBody, ImageKernelGetsThePhotoA2DLaunchAndAnImageView) {
    const std::string header = describe("course_blur.cu");
    const std::vector<std::string> expected = {
        "/*@playground",
        "title: blur_filter",
        "param width: int = input.width",
        "param height: int = input.height",
        "buffer input: uchar[width * height] in image(\"chelsea.png\")",
        "buffer output: uchar[width * height] out zeros",
        "block: 16 x 16",
        "grid: ceil(width / block.x) x ceil(height / block.y)",
        "problem: width x height",
        "view output: image(width, height)",
        "*/",
    };
    EXPECT_EQ(key_lines(header), expected) << header;
    const auto guesses = guess_lines(header);
    EXPECT_TRUE(any_line_has(guesses, "`input`: only read")) << header;
    EXPECT_TRUE(any_line_has(guesses, "gray, one value per pixel")) << header;
    EXPECT_TRUE(any_line_has(guesses, "`output`: only written")) << header;
    EXPECT_TRUE(any_line_has(guesses, "blockIdx.y/threadIdx.y")) << header;
    EXPECT_NE(header.find("# not known: what the kernel should compute"), std::string::npos) << header;
}

TEST(DescribeBody, TiledMatrixMultiplyGetsItsTileAsBlockAndSizesFromIndexing) {
    const std::string header = describe("course_matmul_tiled.cu");
    const std::vector<std::string> expected = {
        "/*@playground",
        "title: matmul_tiled",
        // Sizes that are not multiples of the tile: the kernel has no bounds check, and its run then shows it.
        "param m: int = 203 range 1..4096",
        "param k: int = 157 range 1..4096",
        "param n: int = 301 range 1..4096",
        "buffer A: float[m * k] in random(seed=1, min=-1, max=1)",
        "buffer B: float[k * n] in random(seed=2, min=-1, max=1)",
        "buffer C: float[m * n] out zeros",
        "block: 16 x 16",
        "grid: ceil(n / block.x) x ceil(m / block.y)",
        "problem: n x m",
        "view C: image(n, m)",
        "*/",
    };
    EXPECT_EQ(key_lines(header), expected) << header;
    const auto guesses = guess_lines(header);
    EXPECT_TRUE(any_line_has(guesses, "shared tile `As[TILE_WIDTH][TILE_WIDTH]`")) << header;
    EXPECT_TRUE(any_line_has(guesses, "no bounds check")) << header;
    EXPECT_TRUE(any_line_has(guesses, "indexed `[(t * TILE_WIDTH + ty) * n + col]`")) << header;
}

TEST(DescribeBody, ExternSharedReductionGetsItsDynamicSharedMemory) {
    const std::string header = describe("course_reduce_shared.cu");
    const std::vector<std::string> expected = {
        "/*@playground",
        "title: block_sum",
        "param n: int = 100003 range 1..16777216",
        "buffer input: float[n] in random(seed=1, min=-1, max=1)",
        "buffer partial: float[ceil(n / 256)] out zeros",
        "block: 256",
        "grid: ceil(n / block.x)",
        "shared: block.x * 4",
        "problem: n",
        "view partial: plot",
        "*/",
    };
    EXPECT_EQ(key_lines(header), expected) << header;
    const auto guesses = guess_lines(header);
    EXPECT_TRUE(any_line_has(guesses, "extern __shared__ float sdata[]`: blockDim.x * sizeof(float)")) << header;
    EXPECT_TRUE(any_line_has(guesses, "indexed by blockIdx.x: one element per block")) << header;
}

TEST(DescribeBody, ScanSharedMemoryIsSizedFromItsIndexing) {
    const std::string header = describe("course_scan.cu");
    EXPECT_NE(header.find("\nshared: 2 * block.x * 4\n"), std::string::npos) << header;
    EXPECT_NE(header.find("2 * blockDim.x * sizeof(float)"), std::string::npos) << header;
}

TEST(DescribeBody, PackedRgbBufferHoldsThreeBytesPerPixelOfThePhoto) {
    const std::string header = describe("course_grayscale.cu");
    EXPECT_NE(header.find("\nbuffer rgb: uchar[width * height * 3] in image(\"chelsea.png\")\n"), std::string::npos)
        << header;
    EXPECT_NE(header.find("\nbuffer gray: uchar[width * height] out zeros\n"), std::string::npos) << header;
    EXPECT_NE(header.find("packed RGB, 3 values per pixel"), std::string::npos) << header;
}

TEST(DescribeBody, DirectionsComeFromUseNotConst) {
    const std::string saxpy = describe("course_saxpy.cu");  // neither pointer is const
    EXPECT_NE(saxpy.find("\nbuffer x: float[n] in random("), std::string::npos) << saxpy;
    EXPECT_NE(saxpy.find("\nbuffer y: float[n] inout random("), std::string::npos) << saxpy;
    EXPECT_NE(saxpy.find("\nparam a: float = 2.0 range -10..10 step 0.5\n"), std::string::npos) << saxpy;
    const std::string hist = describe("course_histogram.cu");
    EXPECT_NE(hist.find("\nbuffer data: uchar[n] in random(seed=1, min=0, max=255)\n"), std::string::npos) << hist;
    EXPECT_NE(hist.find("\nbuffer bins: uint[256] inout zeros\n"), std::string::npos) << hist;
    const std::string diff = describe("course_difference.cu");  // reads in[i + 1]
    EXPECT_NE(diff.find("\nbuffer in: float[n + 1] in random("), std::string::npos) << diff;
    EXPECT_NE(diff.find("\nbuffer out: float[n] out zeros\n"), std::string::npos) << diff;
    const std::string transpose = describe("course_transpose.cu");
    EXPECT_NE(transpose.find("\nblock: 32 x 32\n"), std::string::npos) << transpose;
    EXPECT_NE(transpose.find("\nview out: image(height, width)\n"), std::string::npos) << transpose;
}

// Each course file: described, run unchanged, then run again with a reference (written here) that checks the
// kernel's outputs and also fails the check when the inputs are mostly zero or the expected output is flat.
struct CourseCase {
    const char* file;
    const char* tolerance;
    const char* reference;  // `static void ref(...)`, its parameters named as the header's buffers and params
    // A kernel without a bounds check that takes its sizes: described with sizes that are not multiples of its
    // block, its unchanged run stops with this error kind (naming the thread and line), and with `sets` (multiples
    // of the block, as its course launches it) it verifies.
    const char* unchanged_kind = nullptr;
    std::vector<std::string> sets = {};
};

// How gtest names a case in its messages: by its file.
static void PrintTo(const CourseCase& c, std::ostream* os) {
    *os << c.file;
}

// Appended to each reference: fails the comparison on purpose (by moving the expected value far away) when
// the inputs do not show anything.
const char* kPoison = R"(
template <class T> static long nonzero(const T* p, long count) { long c = 0; for (long i = 0; i < count; ++i) c += p[i] != T(0); return c; }
template <class T> static bool varies(const T* p, long count) { for (long i = 1; i < count; ++i) if (p[i] != p[0]) return true; return false; }
)";

const CourseCase kCourse[] = {
    {"course_blur.cu", "0", R"(
static void ref(const unsigned char* input, unsigned char* output, int width, int height) {
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            int sum = 0, count = 0;
            for (int yy = y - 1; yy <= y + 1; ++yy)
                for (int xx = x - 1; xx <= x + 1; ++xx)
                    if (yy >= 0 && yy < height && xx >= 0 && xx < width) { sum += input[yy * width + xx]; ++count; }
            output[y * width + x] = (unsigned char)(sum / count);
        }
    const long n = long(width) * height;
    if (nonzero(input, n) < n / 2 || !varies(output, n) || width != 451 || height != 300) output[0] += 100;
})"},
    {"course_grayscale.cu", "1", R"(
static void ref(const unsigned char* rgb, unsigned char* gray, int width, int height) {
    const long n = long(width) * height;
    for (long p = 0; p < n; ++p) gray[p] = (unsigned char)(0.21f * rgb[3 * p] + 0.71f * rgb[3 * p + 1] + 0.07f * rgb[3 * p + 2]);
    bool colour = false;  // packed RGB of a colour photo: the channels differ somewhere
    for (long p = 0; p < n; ++p) colour = colour || rgb[3 * p] != rgb[3 * p + 2];
    if (nonzero(rgb, 3 * n) < 3 * n / 2 || !varies(gray, n) || !colour) gray[0] += 100;
})"},
    {"course_matmul_tiled.cu", "1e-3", R"(
static void ref(const float* A, const float* B, float* C, int m, int k, int n) {
    for (int r = 0; r < m; ++r)
        for (int c = 0; c < n; ++c) {
            double s = 0;
            for (int i = 0; i < k; ++i) s += double(A[r * k + i]) * B[i * n + c];
            C[r * n + c] = float(s);
        }
    if (nonzero(A, long(m) * k) < long(m) * k / 2 || nonzero(B, long(k) * n) < long(k) * n / 2 || !varies(C, long(m) * n) ||
        m == k || k == n)
        C[0] += 100;
})", "out_of_bounds", {"m=192", "k=128", "n=160"}},
    {"course_matmul_square.cu", "1e-3", R"(
static void ref(const float* a, const float* b, float* c, int width) {
    for (int r = 0; r < width; ++r)
        for (int col = 0; col < width; ++col) {
            double s = 0;
            for (int i = 0; i < width; ++i) s += double(a[r * width + i]) * b[i * width + col];
            c[r * width + col] = float(s);
        }
    const long n = long(width) * width;
    if (nonzero(a, n) < n / 2 || nonzero(b, n) < n / 2 || !varies(c, n) || width % 16 == 0) c[0] += 100;
})"},
    {"course_reduce_shared.cu", "1e-3", R"(
static void ref(const float* input, float* partial, int n) {
    const int blocks = (n + 255) / 256;
    for (int b = 0; b < blocks; ++b) {
        double s = 0;
        for (int i = b * 256; i < n && i < (b + 1) * 256; ++i) s += input[i];
        partial[b] = float(s);
    }
    if (nonzero(input, n) < n / 2 || !varies(partial, blocks)) partial[0] += 100;
})"},
    {"course_scan.cu", "1e-3", R"(
static void ref(const float* input, float* output, int n) {
    double s = 0;
    for (int i = 0; i < n; ++i) {
        if (i % 256 == 0) s = 0;
        s += input[i];
        output[i] = float(s);
    }
    if (nonzero(input, n) < n / 2 || !varies(output, n)) output[0] += 100;
})"},
    {"course_transpose.cu", "0", R"(
static void ref(const float* in, float* out, int width, int height) {
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) out[x * height + y] = in[y * width + x];
    const long n = long(width) * height;
    if (nonzero(in, n) < n / 2 || !varies(out, n) || width == height) out[0] += 100;
})"},
    {"course_difference.cu", "1e-6", R"(
static void ref(const float* in, float* out, int n) {
    for (int i = 0; i < n; ++i) out[i] = in[i + 1] - in[i];
    if (nonzero(in, n + 1) < n / 2 || !varies(out, n)) out[0] += 100;
})"},
    {"course_saxpy.cu", "1e-5", R"(
static void ref(const float* x, float* y, float a, int n) {
    const bool y_set = nonzero(y, n) > n / 2;
    for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
    if (nonzero(x, n) < n / 2 || !y_set || !varies(y, n) || a == 0) y[0] += 100;
})"},
    {"course_invert_rgba.cu", "0", R"(
static void ref(const uchar4* image, uchar4* result, int width, int height) {
    const long n = long(width) * height;
    long lit = 0;
    bool varied = false;
    for (long p = 0; p < n; ++p) {
        const uchar4 q = image[p];
        result[p] = make_uchar4(255 - q.x, 255 - q.y, 255 - q.z, q.w);
        lit += q.x != 0 || q.y != 0 || q.z != 0;
        varied = varied || result[p].x != result[0].x;
    }
    if (lit < n / 2 || !varied) result[0].x += 100;
})"},
    {"course_grayscale_offset.cu", "1", R"(
static void ref(unsigned char* grey, const unsigned char* rgb, int cols, int rows) {
    const long n = long(cols) * rows;
    for (long p = 0; p < n; ++p) grey[p] = (unsigned char)(0.21f * rgb[3 * p] + 0.71f * rgb[3 * p + 1] + 0.07f * rgb[3 * p + 2]);
    bool colour = false;
    for (long p = 0; p < n; ++p) colour = colour || rgb[3 * p] != rgb[3 * p + 2];
    if (nonzero(rgb, 3 * n) < 3 * n / 2 || !varies(grey, n) || !colour || cols != 451 || rows != 300) grey[0] += 100;
})"},
    {"course_add_exact_launch.cu", "0", R"(
static void ref(const int* a, const int* b, int* c, int n) {
    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
    if (nonzero(a, n) < n / 2 || !varies(c, n) || n % 256 != 0) c[0] += 100;
})"},
    {"course_scan_one_block.cu", "1e-3", R"(
static void ref(float* g_odata, const float* g_idata, int n) {
    double s = 0;
    for (int i = 0; i < n; ++i) {
        g_odata[i] = float(s);
        s += g_idata[i];
    }
    if (nonzero(g_idata, n) < n / 2 || !varies(g_odata, n) || n != 256) g_odata[0] += 100;
})"},
    {"course_add_unguarded.cu", "0", R"(
static void ref(const float* a, const float* b, float* c, int n) {
    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
    if (nonzero(a, n) < n / 2 || !varies(c, n)) c[0] += 100;
})", "out_of_bounds", {"n=100096"}},
    {"course_histogram.cu", "0", R"(
static void ref(const unsigned char* data, unsigned int* bins, int n) {
    for (int i = 0; i < n; ++i) bins[data[i]]++;
    if (nonzero(data, n) < n / 2 || !varies(bins, 256) || nonzero(bins, 256) < 200) bins[0] += 100;
})"},
};

// The described file with `reference: ref`, a tolerance and the reference appended.
std::string with_reference(const std::string& described, const CourseCase& c) {
    std::string text = described;
    const size_t end = text.find("\n*/\n");
    text.insert(end, std::string("\nreference: ref\ntolerance: ") + c.tolerance);
    return text + "\n#ifdef PLAYGROUND_REFERENCE\n" + kPoison + c.reference + "\n#endif\n";
}

// One test per course file (a failure names its file; ctest's workers share the files).
class DescribeCourseFile : public testing::TestWithParam<CourseCase> {};

TEST_P(DescribeCourseFile, RunsUnchangedOnRealInputsAndVerifies) {
    const CourseCase& c = GetParam();
    TempDir dir;
    auto file = dir.write(c.file, cp::test::read_file(pasted(c.file)));
    auto wrote = cli({"describe", file.string(), "--write"});
    ASSERT_EQ(wrote.exit_code, 0) << wrote.both();
    const std::string described = cp::test::read_file(file);
    // Inputs never start at zero: every `in`/`inout` buffer is filled, except atomic accumulators.
    std::istringstream lines(described);
    for (std::string line; std::getline(lines, line);)
        if (line.rfind("buffer ", 0) == 0 && line.find("] in ") != std::string::npos) {
            EXPECT_EQ(line.find("zeros"), std::string::npos) << line;
        }

    auto run = cli({"run", file.string(), "--backend", "cpu", "--repeat", "1", "--json", "-"});
    auto result = nlohmann::json::parse(run.out);
    if (c.unchanged_kind) {
        // The missing bounds check shows, with the thread and the kernel's line.
        EXPECT_EQ(run.exit_code, 1) << described << "\n" << run.both();
        EXPECT_EQ(result["error_kind"], c.unchanged_kind) << result.dump(2);
        EXPECT_TRUE(result["error"].is_object() && result["error"]["line"].is_number_integer()) << result.dump(2);
    } else {
        ASSERT_EQ(run.exit_code, 0) << described << "\n" << run.both();
        EXPECT_TRUE(result["error"].is_null()) << result.dump(2);
    }

    auto checked = dir.write(std::string("checked_") + c.file, with_reference(described, c));
    std::vector<std::string> verify_args = {"run", checked.string(), "--backend", "cpu", "--repeat", "1", "--json", "-"};
    for (const std::string& set : c.sets) verify_args.insert(verify_args.end(), {"--set", set});
    auto verify = cli(verify_args);
    ASSERT_EQ(verify.exit_code, 0) << cp::test::read_file(checked) << "\n" << verify.both();
    auto v = nlohmann::json::parse(verify.out);
    EXPECT_EQ(v["verified"], true) << v.dump(2);
}

// "course_blur.cu" -> "course_blur"
static std::string describe_course_test_name(const testing::TestParamInfo<CourseCase>& info) {
    const std::string file = info.param.file;
    return file.substr(0, file.find('.'));
}

INSTANTIATE_TEST_SUITE_P(EveryCourseKernel, DescribeCourseFile, testing::ValuesIn(kCourse), describe_course_test_name);

TEST(DescribeBody, TheReferenceCheckCanFail) {
    // The same harness with the grayscale weights changed: the check must catch it (exit 2).
    TempDir dir;
    auto file = dir.write("g.cu", cp::test::read_file(pasted("course_grayscale.cu")));
    ASSERT_EQ(cli({"describe", file.string(), "--write"}).exit_code, 0);
    CourseCase wrong = kCourse[1];
    std::string ref = wrong.reference;
    ref.replace(ref.find("0.21f"), 5, "0.31f");
    wrong.reference = ref.c_str();
    auto checked = dir.write("checked.cu", with_reference(cp::test::read_file(file), wrong));
    auto verify = cli({"run", checked.string(), "--backend", "cpu", "--repeat", "1"});
    EXPECT_EQ(verify.exit_code, 2) << verify.both();
}

TEST(DescribeBody, TemplateArgumentsSizeTheTileAndTheHeaderVerifies) {
    // The pasted template sample without its header (its reference block stays below the kernel):
    // `--kernel MatrixMulCUDA<16>` makes BLOCK_SIZE 16.
    std::string text = cp::test::read_file(pasted("matrix_mul_template.cu"));
    text = text.substr(text.find("*/\n") + 3);
    TempDir dir;
    auto file = dir.write("mm.cu", text);
    auto wrote = cli({"describe", file.string(), "--kernel", "MatrixMulCUDA<16>", "--write"});
    ASSERT_EQ(wrote.exit_code, 0) << wrote.both();
    std::string described = cp::test::read_file(file);
    EXPECT_NE(described.find("shared tile `As[BLOCK_SIZE][BLOCK_SIZE]` has one element per thread of a 16 x 16 block"),
              std::string::npos)
        << described;
    EXPECT_NE(described.find("\nbuffer a: float[m * k] in random("), std::string::npos) << described;
    EXPECT_NE(described.find("\nbuffer b: float[k * n] in random("), std::string::npos) << described;
    EXPECT_NE(described.find("\nbuffer c: float[m * n] out zeros\n"), std::string::npos) << described;
    described.insert(described.find("\n*/\n"), "\nreference: matmul_reference\ntolerance: 1e-3");
    auto checked = dir.write("checked.cu", described);
    auto r = cli({"run", checked.string(), "--backend", "cpu", "--repeat", "1", "--json", "-"});
    ASSERT_EQ(r.exit_code, 0) << described << "\n" << r.both();
    EXPECT_EQ(nlohmann::json::parse(r.out)["verified"], true) << r.out;
}
