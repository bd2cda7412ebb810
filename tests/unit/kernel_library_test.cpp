// The kernel files shipped in kernels/ parse with no diagnostics, and their metadata says what the files say.
#include "core/kernel_file/kernel_file.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include "test_paths.h"

namespace cp {
namespace {

std::filesystem::path library() { return std::filesystem::path(CP_SOURCE_DIR) / "kernels"; }

std::string all_diagnostics(const KernelFile& f) {
    std::string out;
    for (const auto& d : f.diagnostics) out += d.str() + "\n";
    return out;
}

TEST(KernelLibrary, EveryFileParsesWithoutDiagnostics) {
    const auto files = scan_library(library());
    ASSERT_GE(files.size(), 4u);
    for (const auto& f : files) {
        EXPECT_TRUE(f.diagnostics.empty()) << f.path << ":\n" << all_diagnostics(f);
        EXPECT_TRUE(f.usable()) << f.path;
        EXPECT_TRUE(f.spec.has_metadata) << f.path;
        EXPECT_FALSE(f.spec.title.empty()) << f.path;
    }
}

TEST(KernelLibrary, SortedByCategoryThenTitle) {
    const auto files = scan_library(library());
    for (size_t i = 1; i < files.size(); ++i) {
        const auto& a = files[i - 1].spec;
        const auto& b = files[i].spec;
        EXPECT_TRUE(a.category < b.category || (a.category == b.category && a.title <= b.title))
            << a.title << " / " << b.title;
    }
}

TEST(KernelLibrary, VectorAddMetadata) {
    auto loaded = load_kernel_file(library() / "basics" / "vector_add.cu");
    ASSERT_TRUE(loaded) << loaded.error().full();
    const KernelFile& f = *loaded;
    EXPECT_EQ(f.spec.title, "Vector add");
    EXPECT_EQ(f.spec.category, "Basics");
    EXPECT_EQ(f.spec.tags, (std::vector<std::string>{"1D", "indexing", "bounds check"}));
    EXPECT_NE(f.spec.about.find("hello world"), std::string::npos);
    EXPECT_NE(f.spec.about.find("out of bounds. Try removing it"), std::string::npos) << f.spec.about;
    ASSERT_EQ(f.spec.params.size(), 1u);
    EXPECT_EQ(f.spec.params[0].name, "n");
    EXPECT_EQ(f.spec.params[0].type, ScalarType::Int);
    EXPECT_EQ(f.spec.params[0].default_expr, "1000003");
    EXPECT_EQ(f.spec.params[0].min, 1.0);
    EXPECT_EQ(f.spec.params[0].max, 67108864.0);
    EXPECT_FALSE(f.spec.params[0].derived);
    ASSERT_EQ(f.spec.buffers.size(), 3u);
    const BufferSpec* a = f.buffer("a");
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->type, ElemType::Float);
    EXPECT_EQ(a->count_expr, "n");
    EXPECT_EQ(a->direction, Direction::In);
    EXPECT_EQ(a->init.kind, BufferInit::Kind::Random);
    EXPECT_EQ(a->init.seed, 1u);
    EXPECT_EQ(a->init.min, -1.0);
    EXPECT_EQ(a->init.max, 1.0);
    EXPECT_EQ(f.buffer("b")->init.kind, BufferInit::Kind::Ramp);
    EXPECT_DOUBLE_EQ(f.buffer("b")->init.step, 0.001);
    EXPECT_EQ(f.buffer("c")->direction, Direction::Out);
    EXPECT_EQ(f.buffer("c")->init.kind, BufferInit::Kind::Zeros);
    EXPECT_EQ(f.spec.launch.block_expr[0], "256");
    EXPECT_EQ(f.spec.launch.block_expr[1], "1");
    EXPECT_EQ(f.spec.launch.grid_expr[0], "ceil(n / block.x)");
    EXPECT_EQ(f.spec.launch.problem_expr, std::vector<std::string>{"n"});
    ASSERT_EQ(f.spec.views.size(), 1u);
    EXPECT_EQ(f.spec.views[0].kind, ViewSpec::Kind::Plot);
    EXPECT_EQ(f.spec.reference, "vector_add_reference");
    EXPECT_DOUBLE_EQ(f.spec.tolerance, 1e-6);
    ASSERT_TRUE(f.signature);
    EXPECT_EQ(f.signature->name, "vector_add");
    ASSERT_EQ(f.signature->params.size(), 4u);
    EXPECT_EQ(f.signature->params[0].type_text, "const float*");
    EXPECT_EQ(f.signature->params[0].base_type, "float");
    EXPECT_TRUE(f.signature->params[0].is_pointer);
    EXPECT_FALSE(f.signature->params[3].is_pointer);
    EXPECT_EQ(f.signature->line, f.spec.header_last_line + 1);
}

TEST(KernelLibrary, ThreadIdsMetadata) {
    auto loaded = load_kernel_file(library() / "basics" / "thread_ids.cu");
    ASSERT_TRUE(loaded) << loaded.error().full();
    const KernelFile& f = *loaded;
    EXPECT_EQ(f.spec.launch.block_expr[0], "16");
    EXPECT_EQ(f.spec.launch.block_expr[1], "16");
    EXPECT_EQ(f.spec.launch.block_expr[2], "1");
    EXPECT_EQ(f.spec.launch.grid_expr[0], "ceil(width / block.x)");
    EXPECT_EQ(f.spec.launch.grid_expr[1], "ceil(height / block.y)");
    EXPECT_EQ(f.spec.launch.problem_expr, (std::vector<std::string>{"width", "height"}));
    EXPECT_EQ(f.buffer("ids")->init.kind, BufferInit::Kind::Constant);
    EXPECT_EQ(f.buffer("ids")->init.constant, -1.0);
    EXPECT_EQ(f.buffer("ids")->type, ElemType::Int);
    ASSERT_EQ(f.spec.views.size(), 1u);
    EXPECT_EQ(f.spec.views[0].kind, ViewSpec::Kind::Image);
    EXPECT_EQ(f.spec.views[0].width_expr, "width");
    EXPECT_EQ(f.spec.views[0].height_expr, "height");
    EXPECT_EQ(f.spec.views[0].colormap, "viridis");
    EXPECT_EQ(f.spec.tolerance, 0.0);
}

TEST(KernelLibrary, ImageKernelsHaveDerivedSizes) {
    for (const char* name : {"image/box_blur.cu", "image/grayscale.cu"}) {
        auto loaded = load_kernel_file(library() / name);
        ASSERT_TRUE(loaded) << loaded.error().full();
        const KernelFile& f = *loaded;
        ASSERT_NE(f.param("width"), nullptr) << name;
        EXPECT_TRUE(f.param("width")->derived) << name;
        EXPECT_TRUE(f.param("height")->derived) << name;
        EXPECT_EQ(f.param("width")->default_expr, "src.width");
        EXPECT_EQ(f.buffer("src")->init.kind, BufferInit::Kind::Image);
        EXPECT_EQ(f.buffer("src")->init.image, "coffee.png");
        EXPECT_EQ(f.buffer("src")->type, ElemType::UChar4);
        EXPECT_EQ(f.spec.tolerance, 1.0);
        EXPECT_EQ(f.spec.category, "Image filters");
    }
}

}  // namespace
}  // namespace cp

namespace cp {
namespace {

// The complete example in kernels/FORMAT.md is a valid kernel file.
TEST(KernelLibrary, FormatDocExampleParses) {
    std::ifstream in(std::filesystem::path(CP_SOURCE_DIR) / "kernels" / "FORMAT.md");
    std::ostringstream text;
    text << in.rdbuf();
    const std::string doc = text.str();
    const size_t start = doc.find("```cuda\n");
    ASSERT_NE(start, std::string::npos);
    const size_t end = doc.find("```", start + 8);
    ASSERT_NE(end, std::string::npos);
    const KernelFile f = parse_kernel_source(doc.substr(start + 8, end - start - 8), "FORMAT.md");
    std::string diags;
    for (const auto& d : f.diagnostics) diags += d.str() + "\n";
    EXPECT_TRUE(f.diagnostics.empty()) << diags;
    EXPECT_TRUE(f.usable());
    EXPECT_EQ(f.spec.params.size(), 4u);
    EXPECT_EQ(f.param("mode")->default_expr, "1");
    EXPECT_EQ(f.spec.views.at(0).range_max, 12.0);
}

}  // namespace
}  // namespace cp
