// zstd for the remote link's blobs (marked in the message's JSON) and box-filtered previews of pictures.
#include "core/remote/wire_compress.h"

#include <zstd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace cp {

namespace {
constexpr const char* kMark = "blob_zstd";
constexpr const char* kDeltaMark = "blob_delta";
constexpr const char* kAnswerMark = "answer_coding";

// LOCO-I's median predictor (JPEG-LS) from the left (a), upper (b) and upper-left (d) neighbours.
inline uint8_t median_predict(int a, int b, int d) {
    const int lo = std::min(a, b), hi = std::max(a, b);
    return uint8_t(d >= hi ? lo : d <= lo ? hi : a + b - d);
}

// Calls code(component, plane index, prediction) for every component of every pixel of `px` (width x rows,
// `components` interleaved), row after row: each prediction is made from neighbours already known to a decoder
// that writes `px` in this order (the first row predicts from the left, the first column from above, the very
// first pixel is predicted as 0). Row by row with pointers: a picture of a megabyte takes about a millisecond.
template <class Code>
void for_each_prediction(const uint8_t* px, size_t width, size_t rows, size_t components, Code&& code) {
    const size_t stride = width * components;
    for (size_t y = 0; y < rows; ++y) {
        const uint8_t* row = px + y * stride;
        const uint8_t* up = y > 0 ? row - stride : nullptr;
        const size_t at = y * width;
        for (size_t c = 0; c < components; ++c) code(c, at, uint8_t(up ? up[c] : 0));
        for (size_t x = 1; x < width; ++x) {
            const uint8_t* left = row + (x - 1) * components;
            if (!up) {
                for (size_t c = 0; c < components; ++c) code(c, at + x, left[c]);
                continue;
            }
            const uint8_t* above = up + x * components;
            const uint8_t* above_left = above - components;
            for (size_t c = 0; c < components; ++c) code(c, at + x, median_predict(left[c], above[c], above_left[c]));
        }
    }
}
}  // namespace

AnswerCoding coding_for_link(double mb_per_s, bool shown_frame) {
    if (mb_per_s <= 0 || mb_per_s < kPredictBelowMBps) return AnswerCoding::Full;
    if (shown_frame && mb_per_s < kSameMachineMBps) return AnswerCoding::Full;
    return mb_per_s < kCompressBelowMBps ? AnswerCoding::Zstd : AnswerCoding::Raw;
}

void ask_answer_coding(WireMessage& request, AnswerCoding coding) {
    if (coding == AnswerCoding::Full) return;
    nlohmann::json j = nlohmann::json::parse(request.json, nullptr, false);
    if (!j.is_object()) return;
    j[kAnswerMark] = coding == AnswerCoding::Raw ? "raw" : "zstd";
    request.json = j.dump();
}

AnswerCoding answer_coding_asked(const WireMessage& request) {
    if (request.json.find(kAnswerMark) == std::string::npos) return AnswerCoding::Full;  // most requests: no parse
    const nlohmann::json j = nlohmann::json::parse(request.json, nullptr, false);
    if (!j.is_object()) return AnswerCoding::Full;
    const std::string asked = j.value(kAnswerMark, std::string());
    return asked == "raw" ? AnswerCoding::Raw : asked == "zstd" ? AnswerCoding::Zstd : AnswerCoding::Full;
}

std::vector<std::byte> zstd_compress(const std::vector<std::byte>& data, int level) {
    std::vector<std::byte> out(ZSTD_compressBound(data.size()));
    const size_t n = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), level);
    if (ZSTD_isError(n)) return {};  // cannot happen with a bound-sized output; callers then send raw
    out.resize(n);
    return out;
}

Result<std::vector<std::byte>> zstd_decompress(const std::vector<std::byte>& frame, uint64_t max_bytes) {
    const unsigned long long size = ZSTD_getFrameContentSize(frame.data(), frame.size());
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN)
        return make_error(ErrorKind::Internal, "a compressed blob is not a zstd frame with its size");
    if (size > max_bytes)
        return make_error(ErrorKind::Internal, "a compressed blob says it holds " + std::to_string(size) +
                                                   " bytes, more than the " + std::to_string(max_bytes) + " expected");
    std::vector<std::byte> out(size);
    const size_t n = ZSTD_decompress(out.data(), out.size(), frame.data(), frame.size());
    if (ZSTD_isError(n) || n != size)
        return make_error(ErrorKind::Internal, std::string("a compressed blob is damaged: ") +
                                                   (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "it is short"));
    return out;
}

bool compress_blob(WireMessage& message, int level) {
    if (message.blob.size() < kCompressMinBytes) return false;
    std::vector<std::byte> packed = zstd_compress(message.blob, level);
    if (packed.empty() || packed.size() >= message.blob.size()) return false;  // incompressible: send it raw
    nlohmann::json j = nlohmann::json::parse(message.json, nullptr, false);
    if (!j.is_object()) return false;
    j[kMark] = message.blob.size();
    message.json = j.dump();
    message.blob = std::move(packed);
    return true;
}

std::optional<Error> decompress_blob(WireMessage& message) {
    // Cheap test first: most messages (no blob, or a small raw one) carry no mark.
    if (message.json.find(kMark) == std::string::npos) return std::nullopt;
    nlohmann::json j = nlohmann::json::parse(message.json, nullptr, false);
    if (!j.is_object() || !j.contains(kMark)) return std::nullopt;  // the words inside a string, not the mark
    if (!j[kMark].is_number_unsigned()) return make_error(ErrorKind::Internal, "a message's blob_zstd is not a size");
    const uint64_t size = j[kMark].get<uint64_t>();
    auto bytes = zstd_decompress(message.blob, size);
    if (!bytes) return bytes.error();
    if (bytes->size() != size)
        return make_error(ErrorKind::Internal, "a compressed blob holds " + std::to_string(bytes->size()) +
                                                   " bytes where its message says " + std::to_string(size));
    j.erase(kMark);
    message.json = j.dump();
    message.blob = std::move(*bytes);
    return std::nullopt;
}

void delta_encode_picture(WireMessage& message, uint32_t width, uint32_t components) {
    const size_t n = message.blob.size();
    if (width == 0 || components == 0 || n % (size_t(width) * components) != 0) return;
    nlohmann::json j = nlohmann::json::parse(message.json, nullptr, false);
    if (!j.is_object()) return;
    const size_t pixels = n / components;
    std::vector<std::byte> out(n);
    const auto* in = reinterpret_cast<const uint8_t*>(message.blob.data());
    auto* planes = reinterpret_cast<uint8_t*>(out.data());
    for_each_prediction(in, width, pixels / width, components, [&](size_t c, size_t i, uint8_t predicted) {
        planes[c * pixels + i] = uint8_t(in[i * components + c] - predicted);
    });
    j[kDeltaMark] = {width, components};
    message.json = j.dump();
    message.blob = std::move(out);
}

std::optional<Error> delta_decode_picture(WireMessage& message) {
    if (message.json.find(kDeltaMark) == std::string::npos) return std::nullopt;
    nlohmann::json j = nlohmann::json::parse(message.json, nullptr, false);
    if (!j.is_object() || !j.contains(kDeltaMark)) return std::nullopt;
    const auto& mark = j[kDeltaMark];
    if (!mark.is_array() || mark.size() != 2 || !mark[0].is_number_unsigned() || !mark[1].is_number_unsigned())
        return make_error(ErrorKind::Internal, "a message's blob_delta is not [width, components]");
    const uint64_t width = mark[0].get<uint64_t>(), components = mark[1].get<uint64_t>();
    const size_t n = message.blob.size();
    if (width == 0 || components == 0 || components > 4 || n % (width * components) != 0)
        return make_error(ErrorKind::Internal, "a delta-coded picture of " + std::to_string(n) +
                                                   " bytes is not rows of " + std::to_string(width) + " x " +
                                                   std::to_string(components) + " components");
    const size_t pixels = n / components;
    std::vector<std::byte> out(n);
    const auto* planes = reinterpret_cast<const uint8_t*>(message.blob.data());
    auto* px = reinterpret_cast<uint8_t*>(out.data());
    // Each prediction reads only pixels written before it (the left one's components come first in this order).
    for_each_prediction(px, width, pixels / width, components, [&](size_t c, size_t i, uint8_t predicted) {
        px[i * components + c] = uint8_t(planes[c * pixels + i] + predicted);
    });
    j.erase(kDeltaMark);
    message.json = j.dump();
    message.blob = std::move(out);
    return std::nullopt;
}

std::vector<std::byte> box_downscale(const std::vector<std::byte>& data, uint32_t width, uint32_t height,
                                     uint32_t components, bool is_float, uint32_t max_width, uint32_t max_height,
                                     uint32_t& out_width, uint32_t& out_height) {
    const uint32_t fw = max_width ? (width + max_width - 1) / max_width : 1;
    const uint32_t fh = max_height ? (height + max_height - 1) / max_height : 1;
    const uint32_t f = std::max({fw, fh, 1u});
    out_width = (width + f - 1) / f;
    out_height = (height + f - 1) / f;
    if (f == 1) return data;
    const size_t component_bytes = is_float ? sizeof(float) : 1;
    std::vector<std::byte> out(size_t(out_width) * out_height * components * component_bytes);
    std::vector<double> sums(size_t(out_width) * components);
    for (uint32_t oy = 0; oy < out_height; ++oy) {
        std::fill(sums.begin(), sums.end(), 0.0);
        const uint32_t y0 = oy * f, y1 = std::min(height, y0 + f);
        for (uint32_t y = y0; y < y1; ++y) {
            const std::byte* row = data.data() + size_t(y) * width * components * component_bytes;
            for (uint32_t x = 0; x < width; ++x) {
                double* s = &sums[size_t(x / f) * components];
                for (uint32_t c = 0; c < components; ++c) {
                    if (is_float) {
                        float v;
                        std::memcpy(&v, row + (size_t(x) * components + c) * sizeof(float), sizeof v);
                        s[c] += v;
                    } else {
                        s[c] += double(std::to_integer<uint8_t>(row[size_t(x) * components + c]));
                    }
                }
            }
        }
        for (uint32_t ox = 0; ox < out_width; ++ox) {
            const uint32_t x0 = ox * f, x1 = std::min(width, x0 + f);
            const double n = double(x1 - x0) * double(y1 - y0);
            for (uint32_t c = 0; c < components; ++c) {
                const double mean = sums[size_t(ox) * components + c] / n;
                const size_t at = (size_t(oy) * out_width + ox) * components + c;
                if (is_float) {
                    const float v = float(mean);
                    std::memcpy(out.data() + at * sizeof(float), &v, sizeof v);
                } else {
                    out[at] = std::byte(uint8_t(std::clamp(std::floor(mean + 0.5), 0.0, 255.0)));
                }
            }
        }
    }
    return out;
}

void make_preview(const ReadBackRequest::Preview& p, ReadBackResult& full) {
    if (full.error || p.components < 1 || p.components > 4) return;
    const size_t element = size_t(p.components) * (p.is_float ? sizeof(float) : 1);
    const size_t picture = size_t(p.width) * p.height * element;
    if (picture == 0 || full.data.size() < picture) return;  // not the picture the app thinks: send it all
    if (p.width <= p.max_width && p.height <= p.max_height) return;
    uint32_t w = 0, h = 0;
    std::vector<std::byte> head(full.data.begin(), full.data.begin() + std::ptrdiff_t(picture));
    full.data = box_downscale(head, p.width, p.height, p.components, p.is_float, p.max_width, p.max_height, w, h);
    full.preview_width = w;
    full.preview_height = h;
}

}  // namespace cp
