// The CPU backend's assert(): a failed assertion ends the launch with an error naming the thread and the
// line (as CUDA's device assert does), instead of aborting the whole application. Re-includable like C's.
#undef assert
extern "C" [[noreturn]] void cp_shim_assert_fail(const char* expression, int line);
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) ((e) ? (void)0 : cp_shim_assert_fail(#e, __LINE__))
#endif
