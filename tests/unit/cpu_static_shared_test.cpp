// The CPU worker's static __shared__ arrays (core/cpu/static_shared.h): a kernel library's thread state points at
// the arrays' table, and moving to another library never writes the previous library's state, which may be freed
// by then (issue 23: an edit released the old module before the new one's launch, and the worker's heap broke).
#include "core/cpu/static_shared.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace cp;

namespace {

// A thread state as a freed thread-local block would hold it: every byte a pattern that no write leaves.
cp_abi::ThreadState poisoned() {
    cp_abi::ThreadState s;
    std::memset(&s, 0xA5, sizeof s);
    return s;
}

}  // namespace

TEST(CpuStaticShared, StorageIsKeptPerDeclarationAndSizeAndTheAttachedTableFollows) {
    StaticSharedArrays arrays;
    cp_abi::ThreadState state = poisoned();
    arrays.attach(&state);
    EXPECT_EQ(state.shared_slot_count, 0u);
    EXPECT_EQ(state.shared_owner, &arrays);
    void* a = arrays.storage(1, 32 * 36 * 4, 4, 4, "tile", {1152});
    ASSERT_NE(a, nullptr);
    ASSERT_EQ(state.shared_slot_count, 2u);  // ids 0 and 1: the table is indexed by id
    EXPECT_EQ(state.shared_slots[1].data, a);
    EXPECT_EQ(state.shared_slots[1].bytes, 32u * 36 * 4);
    EXPECT_EQ(state.shared_slots[0].data, nullptr);
    // The same declaration with another size (the array resized by an edit, or a template) has storage of its own.
    void* b = arrays.storage(1, 32 * 32 * 4, 4, 4, "tile", {1024});
    ASSERT_NE(b, nullptr);
    EXPECT_NE(a, b);
    EXPECT_EQ(state.shared_slots[1].data, b);
    EXPECT_EQ(state.shared_slots[1].bytes, 32u * 32 * 4);
    EXPECT_EQ(arrays.storage(1, 32 * 36 * 4, 4, 4, "tile", {1152}), a);  // kept
    const auto hit = arrays.locate(reinterpret_cast<uintptr_t>(b) + 8);
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->name, "tile");
    EXPECT_EQ(hit->bytes, 32u * 32 * 4);
}

TEST(CpuStaticShared, ForgettingTheArraysLeavesThePreviousLibrarysStateUntouched) {
    StaticSharedArrays arrays;
    cp_abi::ThreadState old_state = poisoned();
    arrays.attach(&old_state);
    ASSERT_NE(arrays.storage(0, 4608, 4, 4, "tile", {1152}), nullptr);
    // The old library is unloaded (its thread-local block freed: here, overwritten), then the next launch moves
    // to another library: forget() must not write the old block.
    old_state = poisoned();
    const cp_abi::ThreadState before = old_state;
    arrays.forget();
    EXPECT_EQ(std::memcmp(&old_state, &before, sizeof before), 0) << "forget() wrote the previous library's state";
    EXPECT_FALSE(arrays.locate(0));
    // The new library's state, attached before its launch, gets an empty table and then its arrays.
    cp_abi::ThreadState new_state = poisoned();
    arrays.attach(&new_state);
    EXPECT_EQ(new_state.shared_slot_count, 0u);
    EXPECT_EQ(new_state.shared_slots, nullptr);
    void* tile = arrays.storage(0, 4096, 4, 4, "tile", {1024});
    ASSERT_NE(tile, nullptr);
    ASSERT_EQ(new_state.shared_slot_count, 1u);
    EXPECT_EQ(new_state.shared_slots[0].data, tile);
    EXPECT_EQ(new_state.shared_slots[0].bytes, 4096u);
    EXPECT_EQ(std::memcmp(&old_state, &before, sizeof before), 0) << "a later storage() wrote the previous state";
}
