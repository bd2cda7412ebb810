// Turning output buffers into what a person looks at: RGBA images (through a colormap for scalars) and CSV.
#pragma once

#include "core/data/host_buffer.h"
#include "core/data/image_io.h"
#include "core/kernel_file/kernel_spec.h"
#include "core/result.h"

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

// One view to write: what to show and, for images, the size (as a run resolved it).
struct ExportView {
    ViewSpec spec;
    int width = 0, height = 0;
};
// Writes each view whose buffer is in `outputs` to `dir` (PNG for images, CSV for plots and tables); returns
// the paths. The folder is created when missing.
Result<std::vector<std::filesystem::path>> export_views(const std::vector<ExportView>& views,
                                                       const std::map<std::string, HostBuffer>& outputs,
                                                       const std::filesystem::path& dir);

}  // namespace cp
