// Fuzz target: decoding image files (decode_image: format sniffing, the size check from the header, the
// truncation walks of image_format.cpp, then stb_image). Images named in kernel files or chosen in the window
// are untrusted. A decoded image has the size its header claims, within the limit; a refusal has a message.
#include "core/data/image_format.h"
#include "core/data/image_io.h"
#include "fuzz_check.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    // A small limit keeps each input fast and its memory low; the limit's own check is what is exercised.
    constexpr uint64_t kMaxPixels = 1u << 20;
    const cp::Result<cp::Image> image = cp::decode_image(data, size, "image `fuzz`", kMaxPixels);
    if (image) {
        FUZZ_CHECK(image->width > 0 && image->height > 0, "decoded an image with no pixels");
        FUZZ_CHECK(uint64_t(image->width) * uint64_t(image->height) <= kMaxPixels, "decoded an image over the limit");
        FUZZ_CHECK(image->channels == 4, "decoded an image that is not RGBA");
        FUZZ_CHECK(image->pixels.size() == size_t(image->width) * size_t(image->height) * 4,
                   "decoded " + std::to_string(image->pixels.size()) + " bytes for " + std::to_string(image->width) +
                       "x" + std::to_string(image->height));
    } else {
        FUZZ_CHECK(image.error().message.rfind("image `fuzz` ", 0) == 0,
                   "a refusal that does not name the image: " + image.error().message);
    }
    // Every structure walk on every input, not only on the format the signature picked.
    for (cp::ImageFormat format :
         {cp::ImageFormat::Png, cp::ImageFormat::Jpeg, cp::ImageFormat::Gif, cp::ImageFormat::Bmp, cp::ImageFormat::Tga,
          cp::ImageFormat::Pnm, cp::ImageFormat::Psd}) {
        if (size == 0) break;
        if (auto problem = cp::check_structure(format, data, size))
            FUZZ_CHECK(!problem->detail.empty(), "a problem without words");
    }
    return 0;
}
