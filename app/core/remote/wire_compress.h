// Frames that fit a network: zstd for the bulk bytes (blobs) of the remote worker's messages, and box-filtered
// previews of pictures that are only shown. Only the remote transport uses these; local workers send raw bytes.
#pragma once

#include "core/engine/engine_api.h"
#include "core/result.h"
#include "core/worker/wire_frame.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cp {

// The name both sides say in the greeting ("compress") when they can read and write compressed blobs.
inline constexpr const char* kWireCompression = "zstd";
// Blobs smaller than this travel raw: a few KB gain nothing worth a compressor's call.
inline constexpr size_t kCompressMinBytes = 4096;
// zstd's fast end: pictures and arrays compress about as well at 1 as at 3, at several times the speed.
inline constexpr int kCompressLevel = 1;

// Compressing pays only on a link slower than the codec. zstd at level 1 takes about 3 ms (both ends) for a
// 1 MB picture and saves a third of it, which a link of 100 MB/s moves in about 3 ms; a preview's predictor
// (delta_encode_picture) halves what zstd leaves (0.35 MB more of a MB) for about 6 ms more (both ends), which
// pays below about 50 MB/s.
inline constexpr double kCompressBelowMBps = 100;
inline constexpr double kPredictBelowMBps = 50;
// A picture sent only to be shown (a preview) keeps the network budget of 2 MB a 4K frame on every link but the
// same machine's: below this speed it is always coded fully (the predictor and zstd take a 4K preview from 8.3 to
// about 2 MB), where a gigabit link would move it raw a little sooner but four times larger, beside other
// students' frames.
inline constexpr double kSameMachineMBps = 1000;
// Answers at least this large measure the link (smaller ones are mostly latency).
inline constexpr uint64_t kLinkMeasureMinBytes = 256 * 1024;

// How the worker codes an answer's blob, as the app asks in the request.
enum class AnswerCoding {
    Full,  // zstd, and the predictor first for a uchar preview (what a worker does unasked)
    Zstd,  // zstd alone
    Raw,   // as it is
};
// What a link moving `mb_per_s` (0: not measured yet) is worth: Full below kPredictBelowMBps (and while not
// measured: a network until shown otherwise), Zstd below kCompressBelowMBps, else Raw (a pipe, ssh to the same
// machine, 10 GbE). A `shown_frame` (a preview) is Full below kSameMachineMBps.
AnswerCoding coding_for_link(double mb_per_s, bool shown_frame = false);
// Marks a request with the coding its answer should have (Full: no mark). A worker from before the mark ignores
// it and codes fully, which the app still reads.
void ask_answer_coding(WireMessage& request, AnswerCoding coding);
// The coding `request` asks for (Full when it carries no mark).
AnswerCoding answer_coding_asked(const WireMessage& request);

// zstd of `data` at `level`; the frame records the original size.
std::vector<std::byte> zstd_compress(const std::vector<std::byte>& data, int level = kCompressLevel);
// The bytes of one zstd frame: an Error (kind Internal) when it is not one, is damaged, or would unpack to
// more than `max_bytes`.
Result<std::vector<std::byte>> zstd_decompress(const std::vector<std::byte>& frame, uint64_t max_bytes);

// Compresses `message`'s blob in place when it is at least kCompressMinBytes and zstd makes it smaller,
// marking the JSON ("blob_zstd": its original size) so the peer knows; otherwise leaves it raw. Returns
// whether it compressed.
bool compress_blob(WireMessage& message, int level = kCompressLevel);
// Undoes compress_blob (a message without the mark is left as it is). An Error when the mark or the bytes
// are not what compress_blob writes.
std::optional<Error> decompress_blob(WireMessage& message);

// Pictures of uchars compress two to three times better as each component's difference from what its left,
// upper and upper-left neighbours predict (JPEG-LS's median predictor), one component plane after another,
// than in pixel order: the worker sends a preview of one so, before compress_blob, marking the JSON
// ("blob_delta": [width, components]); the app undoes it after decompress_blob. Only on a link that
// compresses (both sides of this build).
void delta_encode_picture(WireMessage& message, uint32_t width, uint32_t components);
// Undoes delta_encode_picture (a message without the mark is left as it is); an Error when the mark does not
// fit the blob.
std::optional<Error> delta_decode_picture(WireMessage& message);

// A box-filtered copy of a `width` x `height` picture of `components` components per element (uchar or float,
// element after element, rows one after another) that fits `max_width` x `max_height`: each side is divided
// by the same whole factor f = the smallest that fits, and each preview element is the mean of the f x f
// elements it covers (fewer on the last row and column when a side is not a multiple of f; uchar rounded to
// nearest). Writes the preview's size to out_width/out_height. Factor 1 returns the bytes as they are.
std::vector<std::byte> box_downscale(const std::vector<std::byte>& data, uint32_t width, uint32_t height,
                                     uint32_t components, bool is_float, uint32_t max_width, uint32_t max_height,
                                     uint32_t& out_width, uint32_t& out_height);

// The worker's answer to a read-back that asked for a preview: `full` (the buffer's bytes, as the local
// backend read them) downscaled per ReadBackRequest::preview, with ReadBackResult::preview_width/height set;
// left as it is when it already fits, failed, or does not hold width x height elements.
void make_preview(const ReadBackRequest::Preview& preview, ReadBackResult& full);

}  // namespace cp
