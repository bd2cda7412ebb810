// The screen checked (issue 41): after a picture's display texture was made, a few of its texels and the buffer
// texels they were coloured from are read back without stalling the frame (into a small buffer object, behind a
// fence) and compared with the colours those values make on the host. A display pass that wrote nothing, or a
// texture that did not receive its upload, is caught within a frame or two instead of sitting blank or stale
// under a verdict.
#pragma once

#include "render/buffer_texture.h"
#include "render/colormap_pass.h"
#include "render/gl_objects.h"

#include <array>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace cp::render {

struct ProbePoint {
    int x = 0, y = 0;
};

// The texels a check reads: `count` of one row (its first and last, the rest spread between), the row chosen by
// `seed` (a probe's number: the middle, the top and bottom rows, then rows spread over the picture), so that
// successive checks of a live picture look at different places.
std::vector<ProbePoint> probe_points(int width, int height, int count, uint64_t seed);

// What a probe read back at each point, in the order of its points.
struct ProbeSamples {
    std::vector<std::array<double, 4>> source;   // the buffer texture's texel (as the display shader reads it)
    std::vector<std::array<uint8_t, 4>> shown;  // the display texture's level 0
};

class DisplayProbe {
public:
    // Issues the read-backs of `points` from `source` and `display` (level 0), one texel each, and a fence;
    // returns at once.
    DisplayProbe(const BufferTexture& source, const Texture& display, std::vector<ProbePoint> points);
    ~DisplayProbe();
    DisplayProbe(const DisplayProbe&) = delete;
    DisplayProbe& operator=(const DisplayProbe&) = delete;

    const std::vector<ProbePoint>& points() const { return points_; }
    double age_s() const;  // since the reads were issued
    // The samples once the GPU has done the reads (never waits); nullopt while it has not.
    std::optional<ProbeSamples> poll();
    // GL's error after issuing the reads (GL_NO_ERROR: none), and what the last poll's fence wait said.
    GLenum issue_error() const { return issue_error_; }
    GLenum last_wait() const { return last_wait_; }

private:
    std::vector<ProbePoint> points_;
    SamplerKind sampler_;
    double value_scale_ = 1;
    GLuint buffer_ = 0;
    GLsync fence_ = nullptr;
    GLenum issue_error_ = GL_NO_ERROR, last_wait_ = 0;
    std::chrono::steady_clock::time_point started_;
};

// The first point whose shown colour is not the one `expected` gives (within `tolerance` per channel), in words:
// "texel (12,7) is shown as 0,0,0,0 where its value 17 gives 68,1,84,255"; empty when every point agrees.
std::string first_display_mismatch(const ProbeSamples& samples, const std::vector<ProbePoint>& points,
                                   const std::vector<std::array<double, 4>>& values,
                                   const std::vector<std::array<uint8_t, 4>>& expected, int tolerance);

// Test hooks: a display path that drops its data, as seen on a GPU after kernels faulted in other processes.
// `pass`: the colormap pass leaves the display texture as it was; `host_upload`: so does the CPU path's upload.
struct DisplayFaults {
    bool pass = false, host_upload = false;
};
void set_display_faults_for_tests(DisplayFaults faults);
DisplayFaults display_faults();

// Once a display pass was caught drawing wrong, every later picture of this process is coloured on the host.
bool display_pass_distrusted();
void distrust_display_pass();
void trust_display_pass_again_for_tests();

}  // namespace cp::render
