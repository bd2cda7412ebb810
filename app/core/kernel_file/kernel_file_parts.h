// Internal pieces of kernel-file reading, shared by kernel_header.cpp (the metadata block),
// kernel_header_checks.cpp (checks across header lines), kernel_signature.cpp (the __global__ function
// and its cross-check with the header) and kernel_file.cpp (files on disk).
#pragma once

#include "core/kernel_file/kernel_spec.h"

#include <set>
#include <string>
#include <vector>

namespace cp {

// An expression written in the header, remembered so its names can be checked once every line is read.
struct HeaderExpr {
    enum class Context { ParamDefault, BufferCount, Block, Grid, Shared, Problem, View, Traffic, Repeat, Streams };
    Context context;
    std::string text;
    std::string where;       // "the grid", "the count of buffer `a`", for messages
    std::string owner;       // the param whose default this is (ParamDefault only)
    int line = 0, column = 0;
};

// What the header parser learnt beyond the KernelSpec itself.
struct HeaderState {
    std::vector<HeaderExpr> exprs;
    std::set<std::string> broken_names;  // names on param/buffer lines that had errors (no echo errors later)
    std::set<std::string> used_names;    // every name any expression refers to
    int unreadable_lines = 0;            // lines whose key could not be read (one may be the title)
    bool unterminated = false;           // no closing `*/`: nothing else is checked
    int reference_line = 0, tolerance_line = 0, grid_line = 0, kernel_line = 0, expect_line = 0, learn_line = 0;
};

// Parses the `/*@playground ... */` block, if any, filling spec and diagnostics.
void parse_header(const std::string& source, const std::string& file, KernelSpec& spec,
                  std::vector<Diagnostic>& diagnostics, HeaderState& state);

// Checks that need every header line: names, derived params, expression names, views, title.
void check_header(const std::string& file, KernelSpec& spec, std::vector<Diagnostic>& diagnostics,
                  HeaderState& state);

// Compares the header's buffers and params with the kernel's parameters.
void cross_check(const KernelSpec& spec, const KernelSignature& signature, const HeaderState& state,
                 const std::string& file, std::vector<Diagnostic>& diagnostics);

// `source` with comments, string literals and preprocessor lines replaced by spaces (newlines kept).
std::string blank_comments_and_strings(const std::string& source);

// The definition of the (non-kernel) function `name` in `source`, e.g. a lesson's reference; nullopt when there
// is none (no diagnostic) or a parameter has no name (diagnostic added).
std::optional<KernelSignature> parse_function(const std::string& source, const std::string& name, const std::string& file,
                                              std::vector<Diagnostic>& diagnostics);

// `grade case` lines against the header (kernel_header_grade.cpp): each set names a param that can be set or an
// image buffer, once per case; case names differ.
void check_grade(const std::string& file, const KernelSpec& spec, std::vector<Diagnostic>& diagnostics);

// `devices: ... over PARAM` against the rest of the header (kernel_header_devices.cpp): PARAM a settable whole-
// number param, buffers of PARAM elements to cut, other buffers only read, no steps.
void check_devices(const std::string& file, const KernelSpec& spec, std::vector<Diagnostic>& diagnostics);

// A file with `step:` lines (kernel_steps.cpp): each step's kernel found, the steps' parameters agreeing, and
// the header checked against them together; fills step_signatures and signature (the first step's).
void check_steps(KernelFile& f, const HeaderState& state);

// `compare:` (kernel_compare.cpp): each variant that is a kernel of this file is found, is not the kernel the file
// runs, and takes the parameters the header describes (it runs with the same header).
void check_compare(KernelFile& f, const HeaderState& state);

Diagnostic make_diagnostic(const std::string& file, int line, int column, Severity severity, std::string message);

}  // namespace cp
