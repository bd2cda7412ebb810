// Turning output buffers into what a person looks at: RGBA images (through a colormap for scalars) and CSV.
#pragma once

#include "core/data/image_io.h"
#include "core/session/references.h"
#include "core/result.h"
#include "core/session/session.h"

#include <filesystem>
#include <string>
#include <vector>

namespace cp {

struct ViewImage {
    Image image;                         // RGBA8
    double value_min = 0, value_max = 0; // the normalisation used (scalars), else 0..255
};

// `buffer` holds at least width*height elements. uchar4/uchar3 show as colour, float4 as colour in 0..1,
// everything else as its first component normalised (view range, else min..max) through the colormap.
Result<ViewImage> render_view_image(const ViewSpec& view, const HostBuffer& buffer, int width, int height);

// "index,value" (or "index,x,y,z,w" for vector types) rows with a header line.
std::string buffer_csv(const HostBuffer& buffer);

// Writes each view of `spec` to `dir` (PNG for images, CSV for plots and tables); returns the paths.
Result<std::vector<std::filesystem::path>> export_views(const KernelSpec& spec, const RunReport& report,
                                                       const std::filesystem::path& dir);

// Evaluates an image view's width and height expressions with the run's parameters.
Result<std::pair<int, int>> view_size(const ViewSpec& view, const std::map<std::string, double>& params);

}  // namespace cp
