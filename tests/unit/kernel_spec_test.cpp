// Element and scalar type tables: CUDA's sizes and the spellings a kernel author may write.
#include "core/kernel_file/kernel_spec.h"

#include <gtest/gtest.h>

namespace cp {
namespace {

TEST(ElemTypes, SizesFollowCudaLayout) {
    struct Want {
        ElemType type;
        uint32_t size, components, component_size;
        bool is_float;
    };
    const Want table[] = {
        {ElemType::Char, 1, 1, 1, false},     {ElemType::UChar, 1, 1, 1, false},   {ElemType::Short, 2, 1, 2, false},
        {ElemType::UShort, 2, 1, 2, false},   {ElemType::Int, 4, 1, 4, false},     {ElemType::UInt, 4, 1, 4, false},
        {ElemType::LongLong, 8, 1, 8, false}, {ElemType::ULongLong, 8, 1, 8, false},
        {ElemType::Float, 4, 1, 4, true},     {ElemType::Double, 8, 1, 8, true},   {ElemType::UChar2, 2, 2, 1, false},
        {ElemType::UChar3, 3, 3, 1, false},   {ElemType::UChar4, 4, 4, 1, false},  {ElemType::Int2, 8, 2, 4, false},
        {ElemType::Int3, 12, 3, 4, false},    {ElemType::Int4, 16, 4, 4, false},   {ElemType::Float2, 8, 2, 4, true},
        {ElemType::Float3, 12, 3, 4, true},   {ElemType::Float4, 16, 4, 4, true},  {ElemType::UInt2, 8, 2, 4, false},
        {ElemType::UInt3, 12, 3, 4, false},   {ElemType::UInt4, 16, 4, 4, false},
    };
    for (const auto& w : table) {
        const ElemTypeInfo& info = elem_info(w.type);
        EXPECT_EQ(info.type, w.type);
        EXPECT_EQ(info.size, w.size) << info.name;
        EXPECT_EQ(info.components, w.components) << info.name;
        EXPECT_EQ(info.component_size, w.component_size) << info.name;
        EXPECT_EQ(info.is_float, w.is_float) << info.name;
        EXPECT_EQ(info.size, info.components * info.component_size) << info.name;
        // The canonical name reads back as the same type.
        EXPECT_EQ(parse_elem_type(info.name), w.type) << info.name;
    }
    EXPECT_EQ(elem_type_names().size(), std::size(table));
}

TEST(ElemTypes, CudaSpellings) {
    EXPECT_EQ(parse_elem_type("unsigned char"), ElemType::UChar);
    EXPECT_EQ(parse_elem_type("unsigned  char"), ElemType::UChar);
    EXPECT_EQ(parse_elem_type("unsigned int"), ElemType::UInt);
    EXPECT_EQ(parse_elem_type("unsigned"), ElemType::UInt);
    EXPECT_EQ(parse_elem_type("uint"), ElemType::UInt);
    EXPECT_EQ(parse_elem_type("uint32_t"), ElemType::UInt);
    EXPECT_EQ(parse_elem_type("long long"), ElemType::LongLong);
    EXPECT_EQ(parse_elem_type("unsigned long long"), ElemType::ULongLong);
    EXPECT_EQ(parse_elem_type("signed char"), ElemType::Char);
    EXPECT_EQ(parse_elem_type("uint8_t"), ElemType::UChar);
    EXPECT_EQ(parse_elem_type("uchar4"), ElemType::UChar4);
    EXPECT_EQ(parse_elem_type("float4"), ElemType::Float4);
    EXPECT_EQ(parse_elem_type("const float"), ElemType::Float);
    EXPECT_EQ(parse_elem_type(" float const "), ElemType::Float);
    EXPECT_FALSE(parse_elem_type("long"));  // 4 or 8 bytes depending on the platform: not accepted
    EXPECT_FALSE(parse_elem_type("flaot"));
    EXPECT_FALSE(parse_elem_type("float5"));
    EXPECT_FALSE(parse_elem_type(""));
}

TEST(ScalarTypes, NamesAndSpellings) {
    EXPECT_STREQ(scalar_type_name(ScalarType::Int), "int");
    EXPECT_STREQ(scalar_type_name(ScalarType::UInt), "uint");
    EXPECT_STREQ(scalar_type_name(ScalarType::Float), "float");
    EXPECT_STREQ(scalar_type_name(ScalarType::Double), "double");
    EXPECT_EQ(parse_scalar_type("unsigned int"), ScalarType::UInt);
    EXPECT_EQ(parse_scalar_type("int"), ScalarType::Int);
    EXPECT_FALSE(parse_scalar_type("float4"));
    EXPECT_FALSE(parse_scalar_type("char"));
    EXPECT_EQ(scalar_size(ScalarType::Double), 8u);
    EXPECT_EQ(scalar_size(ScalarType::UInt), 4u);
    EXPECT_STREQ(direction_name(Direction::InOut), "inout");
    EXPECT_STREQ(direction_name(Direction::In), "in");
    EXPECT_STREQ(direction_name(Direction::Out), "out");
}

TEST(KernelFileLookup, BufferAndParamByName) {
    KernelFile f;
    f.spec.buffers.push_back(BufferSpec{"a", ElemType::Float, "n", Direction::In, {}, 3});
    f.spec.params.push_back(ParamSpec{"n", ScalarType::Int, "10", {}, {}, {}, {}, false, 2});
    ASSERT_NE(f.buffer("a"), nullptr);
    EXPECT_EQ(f.buffer("a")->line, 3);
    EXPECT_EQ(f.buffer("n"), nullptr);
    ASSERT_NE(f.param("n"), nullptr);
    EXPECT_EQ(f.param("a"), nullptr);
}

}  // namespace
}  // namespace cp
