// View rendering and export: colormaps for scalar buffers, CSV for 1D data, PNG files per view.
#include "core/data/view_export.h"

#include "core/data/colormap.h"
#include "core/data/elem_access.h"
#include "core/kernel_file/expr.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

namespace cp {

namespace {

double component(const HostBuffer& b, size_t i, uint32_t c) {
    return read_component(b.bytes.data() + i * elem_info(b.type).size, b.type, c);
}

}  // namespace

Result<ViewImage> render_view_image(const ViewSpec& view, const HostBuffer& buffer, int width, int height) {
    if (width <= 0 || height <= 0) {
        return make_error(
            ErrorKind::UserInput,
            "view of `" + view.buffer + "` has size " + std::to_string(width) + "x" + std::to_string(height),
            "the view's width and height must be positive");
    }
    const size_t n = size_t(width) * size_t(height);
    if (buffer.count() < n) {
        return make_error(ErrorKind::UserInput,
                          "view of `" + view.buffer + "` is " + std::to_string(width) + "x" + std::to_string(height) +
                              " but the buffer holds only " + std::to_string(buffer.count()) + " elements",
                          "make the view's size match the buffer's (line " + std::to_string(view.line) + ")");
    }
    ViewImage out;
    out.image.width = width;
    out.image.height = height;
    out.image.channels = 4;
    out.image.pixels.resize(n * 4);
    const ElemTypeInfo& info = elem_info(buffer.type);
    const bool colour_bytes = !info.is_float && info.component_size == 1 && info.components >= 3;
    const bool colour_float = info.is_float && info.components >= 3;
    if (colour_bytes || colour_float) {
        const double scale = colour_float ? 255.0 : 1.0;
        for (size_t i = 0; i < n; ++i) {
            for (uint32_t c = 0; c < 4; ++c) {
                const double v = c < info.components ? component(buffer, i, c) * scale : 255.0;
                out.image.pixels[i * 4 + c] = uint8_t(std::clamp(std::lround(v), 0L, 255L));
            }
        }
        out.value_min = 0;
        out.value_max = colour_float ? 1 : 255;
        return out;
    }
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    if (view.range_min && view.range_max) {
        lo = *view.range_min;
        hi = *view.range_max;
    } else {
        for (size_t i = 0; i < n; ++i) {
            const double v = component(buffer, i, 0);
            if (std::isfinite(v)) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
        }
        if (!std::isfinite(lo)) lo = hi = 0;
    }
    const auto& table = colormap_table(view.colormap);
    const double span = hi > lo ? hi - lo : 1.0;
    for (size_t i = 0; i < n; ++i) {
        const double v = component(buffer, i, 0);
        const double t = std::isfinite(v) ? std::clamp((v - lo) / span, 0.0, 1.0) : 0.0;
        const auto& rgba = table[size_t(std::lround(t * 255.0))];
        std::copy(rgba.begin(), rgba.end(), out.image.pixels.begin() + long(i * 4));
    }
    out.value_min = lo;
    out.value_max = hi;
    return out;
}

std::string buffer_csv(const HostBuffer& buffer) {
    const ElemTypeInfo& info = elem_info(buffer.type);
    static const char* names[4] = {"x", "y", "z", "w"};
    std::ostringstream s;
    s.precision(9);
    s << "index";
    if (info.components == 1) s << ",value";
    else for (uint32_t c = 0; c < info.components; ++c) s << "," << names[c];
    s << "\n";
    for (size_t i = 0; i < buffer.count(); ++i) {
        s << i;
        for (uint32_t c = 0; c < info.components; ++c) s << "," << component(buffer, i, c);
        s << "\n";
    }
    return s.str();
}

Result<std::vector<std::filesystem::path>> export_views(const std::vector<ExportView>& views,
                                                       const std::map<std::string, HostBuffer>& outputs,
                                                       const std::filesystem::path& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return make_error(ErrorKind::Io, "cannot create output folder " + dir.string() + ": " + ec.message());
    std::vector<std::filesystem::path> written;
    for (const ExportView& view : views) {
        auto it = outputs.find(view.spec.buffer);
        if (it == outputs.end()) continue;
        if (view.spec.kind == ViewSpec::Kind::Image) {
            if (view.width < 1 || view.height < 1) continue;  // a view the run could not size (it says why)
            auto img = render_view_image(view.spec, it->second, view.width, view.height);
            if (!img) return img.error();
            const auto path = dir / (view.spec.buffer + ".png");
            if (auto saved = save_png(path, img->image); !saved) return saved.error();
            written.push_back(path);
        } else {
            const auto path = dir / (view.spec.buffer + ".csv");
            std::ofstream f(path);
            f << buffer_csv(it->second);
            if (!f) return make_error(ErrorKind::Io, "cannot write " + path.string());
            written.push_back(path);
        }
    }
    return written;
}

}  // namespace cp
