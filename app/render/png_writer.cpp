// Saving screenshots: RGBA8 images to PNG through stb_image_write (libstb).
#include "render/render_target.h"

#include <stb_image_write.h>

namespace cp::render {

Result<bool> write_png(const std::string& path, const Image& image) {
    if (image.width <= 0 || image.height <= 0 || image.pixels.empty())
        return make_error(ErrorKind::Internal, "nothing to save: the image is empty");
    if (!stbi_write_png(path.c_str(), image.width, image.height, image.channels, image.pixels.data(),
                        image.width * image.channels))
        return make_error(ErrorKind::Io, "could not write " + path, "check that the folder exists and is writable");
    return true;
}

}  // namespace cp::render
