/* stb_image compiled with the fuzz build's instrumentation (see CMakeLists.txt): the header Debian's
   libstb-dev ships, so the fuzzer tests the decoder the app links. */
#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>
