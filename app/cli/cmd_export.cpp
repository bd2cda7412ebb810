// `cuda-playground export LESSON [--out DIR]`: the lesson as a standalone CUDA program with a CMakeLists.txt
// (core/session/lesson_export.h), for a teacher to hand out as a plain nvcc program.
#include "cli/args.h"
#include "cli/commands.h"
#include "core/kernel_file/kernel_file.h"
#include "core/session/run_choices.h"
#include "core/session/assignment.h"
#include "core/session/lesson_export.h"

#include <fstream>

#include <iostream>

namespace cp::cli {

namespace {

std::string export_usage() {
    return R"(usage: cuda-playground export LESSON [--out DIR] [--set NAME=VALUE ...]

Writes the lesson as a standalone CUDA program into DIR (default: a folder named after the lesson in the
current folder): LESSON.cu with the lesson's kernels and CPU reference as written and a main() that fills the
inputs as the header says (the same values the playground gives them), launches with the header's grid and
block (every step in order), checks the outputs against the CPU reference with the lesson's tolerance and prints
the verdict `cuda-playground run` prints ("verified"; for a lesson buggy on purpose, whether it failed as its
`expect:` line says); a CMakeLists.txt that builds it with nvcc; the lesson's image as a header of bytes when it
reads one. The program also runs as written under `cuda-playground run DIR/LESSON.cu`.

  --out DIR          where to write the program (made when missing; files of the same names replaced)
  --set NAME=VALUE   a parameter's value (or an image buffer's picture) instead of the header's, as `run` takes it

cuda-playground export ASSIGNMENT --for-students [--out FILE.cu | DIR]

Writes the students' copy of an assignment (a lesson with `grade` lines, kernels/FORMAT.md "Assignments"): the
same file without its `grade` lines, so the hidden cases and the scoring stay with the teacher; the reference
stays, so that students can check their own runs. Each hidden case is checked first as `run --set` would take
it. DIR defaults to the current folder; the file keeps the assignment's name.
)";
}

int export_for_students(const Args& args) {
    if (args.has("--set"))
        return user_error("--set does not apply to --for-students", "the students' copy keeps the header's own values");
    auto file = load_assignment(args.positional[0]);
    if (!file) return user_error(file.error());
    const std::filesystem::path path = file->path;
    const std::string copy = students_copy(*file);
    // The copy must be a lesson of its own: it loads without errors and has no hidden line left.
    const KernelFile reread = parse_kernel_source(copy, path);
    if (has_errors(reread.diagnostics) || reread.spec.grade.enabled())
        return user_error(make_error(ErrorKind::Internal, "the students' copy of `" + path.filename().string() +
                                                              "` does not read as a lesson of its own"));
    std::filesystem::path out = args.get("--out", ".");
    if (out.extension() != ".cu") out /= path.filename();
    std::error_code ec;
    if (std::filesystem::weakly_canonical(out, ec) == std::filesystem::weakly_canonical(path, ec))
        return user_error("--out would write the students' copy over the assignment itself",
                          "give another folder or file name, e.g. --out students/");
    if (auto ok = check_output_file("--out", out); !ok) return user_error(ok.error());
    if (out.has_parent_path()) std::filesystem::create_directories(out.parent_path(), ec);
    std::ofstream f(out, std::ios::binary);
    f << copy;
    f.close();
    if (!f) return user_error(make_error(ErrorKind::Io, "could not write " + out.string()));
    std::cout << "wrote " << out.string() << ": the assignment without its " << file->spec.grade.lines.size()
              << " grade line" << (file->spec.grade.lines.size() == 1 ? "" : "s") << " ("
              << file->spec.grade.cases.size() << " hidden case" << (file->spec.grade.cases.size() == 1 ? "" : "s")
              << ")\n";
    return 0;
}

}  // namespace

int cmd_export(const std::vector<std::string>& argv) {
    auto args = parse_args(argv, {{"--out", true}, {"--set", true, true}, {"--for-students", false}});
    if (!args) return user_error(args.error());
    if (args->has("--help")) {
        std::cout << export_usage();
        return 0;
    }
    if (args->positional.size() != 1)
        return user_error("`export` needs exactly one LESSON", "e.g. cuda-playground export basics/vector_add --out vector_add");
    if (args->has("--for-students")) return export_for_students(*args);
    const auto path = find_kernel_path(args->positional[0]);
    auto file = load_kernel_file(path);
    if (!file) return user_error(file.error());
    RunChoices choices;
    auto sets = parse_sets(*args);
    if (!sets) return user_error(sets.error());
    for (const auto& [name, value] : *sets)
        if (auto ok = apply_set(*file, choices, name, value); !ok) return user_error(ok.error());
    auto exported = export_lesson(*file, choices);
    if (!exported) return user_error(exported.error());
    const std::filesystem::path dir = args->has("--out") ? std::filesystem::path(args->get("--out"))
                                                         : std::filesystem::path(exported->program);
    if (auto ok = check_output_folder("--out", dir); !ok) return user_error(ok.error());
    auto written = write_lesson_export(*exported, dir);
    if (!written) return user_error(written.error());
    std::cout << "wrote " << written->string() << " and " << (exported->files.size() - 1) << " more file"
              << (exported->files.size() == 2 ? "" : "s") << " to " << dir.string() << "\n";
    for (const std::string& l : exported->left_out) std::cout << "  not in the program: " << l << "\n";
    std::cout << "build and run it:  cmake -S " << dir.string() << " -B " << (dir / "build").string()
              << " && cmake --build " << (dir / "build").string() << " && " << (dir / "build" / exported->program).string()
              << "\n";
    std::cout << "or in the playground:  cuda-playground run " << written->string() << "\n";
    return 0;
}

}  // namespace cp::cli
