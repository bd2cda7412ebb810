// One launch of a whole program saved as a lesson (issue 36): the program's file with a metadata header written
// for that launch, beside data files of what it captured. The header names the kernel's instantiation, its
// grid, block and dynamic shared memory, each scalar argument as a `param` with the value the program passed,
// and each buffer as the allocation the launch's pointer points to, filled from the capture before the launch
// (`data("x.bin")`); what the launch left in each buffer it can write is its `result` (`data("y.after.bin")`),
// the outputs the lesson is checked against. So the lesson's views (the output, coverage, the launch view, the
// memory view, timing) show that launch, and a changed block or grid is judged against what the program computed.
//
//   auto lesson = lesson_from_launch(request, run, 1);   // the program's second launch
//   if (lesson) write_program_lesson(*lesson, dir);      // dir/reduce.cu, dir/d_in.bin, dir/d_out.after.bin
#pragma once

#include "core/engine/program_api.h"
#include "core/result.h"

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace cp {

struct ProgramLessonFile {
    std::string name;             // relative to the lesson's folder: "d_in.bin", "common.h"
    std::vector<std::byte> bytes;
};

struct ProgramLesson {
    std::string file_name;  // "reduce.cu"
    std::string source;     // the header, then the program as written
    std::vector<ProgramLessonFile> files;  // the data files and the program's own headers
};

// The lesson for launch `index` (0-based) of `run`, made from `request` as it was run with a capture. Refused
// (ErrorKind::Unsupported, saying why and what to do) for a launch that cannot stand alone: not captured, refused,
// a pointer into the middle of an allocation or into none, the same allocation passed twice, a struct argument, a
// kernel that reads `__constant__`, `__device__` or `__managed__` variables the host code sets.
Result<ProgramLesson> lesson_from_launch(const ProgramRequest& request, const ProgramRun& run, size_t index);

// Writes the lesson into `dir` (made when missing; files of the same names replaced). The kernel file's path.
Result<std::filesystem::path> write_program_lesson(const ProgramLesson& lesson, const std::filesystem::path& dir);

}  // namespace cp
