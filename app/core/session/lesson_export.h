// A lesson exported as a standalone CUDA program (issue 38): the lesson's kernels and CPU reference as written, a
// main() that builds the lesson's inputs as its header says (the same values: the same seeded generator, the image's
// pixels), launches with the header's configuration (every step, in order), checks the outputs against the CPU
// reference with the lesson's tolerance and prints the verdict `cuda-playground run` prints ("check: Matches the CPU
// reference (max error 0)", then "verified"; a lesson that is buggy on purpose says whether it failed as its
// `expect:` line says), plus a CMakeLists.txt that builds it with nvcc. The program uses only what the playground's
// own runtime covers, so it also runs as written under `cuda-playground run` (issue 36) with the same verdict.
//
//   auto exported = export_lesson(file, resolved, initial);   // resolved: the session's run at the defaults
//   if (exported) write_lesson_export(*exported, "out/vector_add");
#pragma once

#include "core/data/host_buffer.h"
#include "core/result.h"
#include "core/session/run_choices.h"
#include "core/session/run_report.h"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace cp {

struct KernelFile;

struct ExportedFile {
    std::string name;  // relative to the program's folder: "vector_add.cu", "CMakeLists.txt", "src_pixels.h"
    std::string text;
};

struct LessonExport {
    std::string program;             // "vector_add": the executable's and the .cu file's name
    std::vector<ExportedFile> files;  // the program first
    // What the standalone program does not do that the lesson does (compare variants, streams, devices), in words.
    std::vector<std::string> left_out;
};

// The program for `file` as `run` resolved it (its params, sizes, grid, block and steps); `initial` holds the
// contents of the buffers filled from an image or a data file, and the expected contents of `result` lines
// (under "NAME.result"), which the program embeds. Refused with ErrorKind::Metadata for a file without a usable
// header, and ErrorKind::Unsupported for one that already has a main() (it is a program: share it as it is).
Result<LessonExport> export_lesson(const KernelFile& file, const ResolvedRun& run,
                                   const std::map<std::string, HostBuffer>& initial);

// The same from the file and the user's choices (the window's sliders and block; none: the header's defaults),
// resolved as a run resolves them, images and data files read as a run reads them.
Result<LessonExport> export_lesson(const KernelFile& file, const RunChoices& choices = {});

// Writes every file into `dir` (made when missing; files of the same names replaced). The program's path.
Result<std::filesystem::path> write_lesson_export(const LessonExport& exported, const std::filesystem::path& dir);

}  // namespace cp
