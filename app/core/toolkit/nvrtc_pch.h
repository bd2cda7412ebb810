// Precompiled headers for NVRTC (12.8+): a kernel that starts with heavy system includes
// (<cooperative_groups.h>, <cuda/std/...>, <cub/...>) reuses the parsed headers of an earlier compile.
// A PCH only works in the process (NVRTC instance) that made it, so they live in a per-process folder.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace cp {

// This process's PCH folder (created on first use): NVRTC's confined thread may write there. A PCH is about
// 100 MB: the folder is removed when the process exits normally (exit(), not _Exit()), or by remove_pch_dir().
std::filesystem::path pch_dir();

// The PCH folder of the process `pid` started with this process's $TMPDIR (a worker: its app removes it once
// the worker has ended, however it ended; WorkerProcess::remove_after_exit).
std::filesystem::path pch_dir_of(pid_t pid);

// Removes the PCH folders in `parent` (this user's, named as pch_dir_of names them) whose process has ended,
// with what they hold; returns how many. pch_dir() calls it on `$TMPDIR` when it first makes this process's
// folder, so that a killed or crashed process's folder does not stay there for good.
size_t remove_stale_pch_dirs(const std::filesystem::path& parent);

// Removes this process's PCH folder with what it holds, if this process made one (the CUDA worker, which ends
// with _Exit, calls it; other processes need not).
void remove_pch_dir();

// Whether CUDA_PLAYGROUND_NO_PCH (set, and not "0") turns every precompiled header off: NVRTC's here and the CPU
// backend's precompiled shim (host_compiler.cpp).
bool pch_turned_off_by_environment();

// Whether this process makes and uses precompiled headers (yes unless turned off). A process that compiles one
// kernel and exits (`cuda-playground compile`) turns them off before its compile: a PCH serves only the process
// that made it, so making one there is work nobody reuses, and where $TMPDIR is not the PCH folder making it
// fails, which costs NVRTC a second compile. Off, pch_options gives nothing and NVRTC's confined thread is not
// given (nor made) the PCH folder.
void set_pch_allowed(bool allowed);
bool pch_allowed();

// Points $TMPDIR at the PCH folder, so that NVRTC's front end, which writes a precompiled header through
// temporary files in $TMPDIR, stays inside the folder the confined thread may write (Landlock). Call it only
// while the process has one thread (the CUDA worker at its start; a benchmark's main): setenv is not safe
// against a concurrent getenv. Nothing else in the CUDA worker uses $TMPDIR.
void use_pch_dir_for_temporary_files();

// The source's leading `#include <...>` lines (comments and blank lines skipped) when they include a heavy
// header and nothing else comes first; "" otherwise (no PCH for that source).
std::string pch_prefix(const std::string& source);

// Extra NVRTC options for compiling `source` with `options`: {"--use-pch=FILE"} when this process holds a
// PCH for its prefix, {"--create-pch=FILE"} when none was tried yet, {} otherwise, with
// CUDA_PLAYGROUND_NO_PCH=1 or after set_pch_allowed(false).
std::vector<std::string> pch_options(const std::string& source, const std::vector<std::string>& options);

// After a compile that used pch_options: whether the PCH it asked to create exists now.
void pch_record(const std::vector<std::string>& pch_opts, bool created);

}  // namespace cp
