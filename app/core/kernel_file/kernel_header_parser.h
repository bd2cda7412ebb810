// Internal to the metadata header parser: text splitting helpers and the part of the parser that reads
// `param` and `buffer` lines (kernel_header_entries.cpp); kernel_header.cpp reads everything else.
#pragma once

#include "core/kernel_file/kernel_file_parts.h"

#include <string>
#include <vector>

namespace cp::header {

struct Word {
    std::string text;
    size_t pos;  // offset in the text it came from
};

std::vector<Word> split_words(const std::string& s);
// Splits "A x B x C" on an `x` standing alone between spaces, so `block.x` and `max(x, 2)` stay whole.
std::vector<Word> split_dims(const std::string& s);
// Splits on commas outside parentheses and quotes.
std::vector<Word> split_args(const std::string& s);
bool contains(const std::vector<std::string>& v, const std::string& s);
std::string format_number(double v);

// Reporting and the `param` / `buffer` lines; the line-level parser derives from it.
class HeaderEntryParser {
public:
    HeaderEntryParser(const std::string& file, KernelSpec& spec, std::vector<Diagnostic>& diagnostics, HeaderState& state)
        : file_(file), spec_(spec), diags_(diagnostics), state_(state) {}

protected:
    struct Line {
        int line;
        int column;         // of value's first character
        std::string value;  // trimmed
    };

    void error(int line, int column, std::string message) {
        diags_.push_back(make_diagnostic(file_, line, column, Severity::Error, std::move(message)));
    }
    void warning(int line, int column, std::string message) {
        diags_.push_back(make_diagnostic(file_, line, column, Severity::Warning, std::move(message)));
    }
    void remember(HeaderExpr::Context context, const std::string& text, const std::string& where, int line,
                  int column, const std::string& owner = {}) {
        state_.exprs.push_back(HeaderExpr{context, text, where, owner, line, column});
    }
    // Evaluates a constant (no names) such as a range bound; reports and returns false on failure.
    bool constant(const std::string& text, int line, int column, const std::string& what, double& out);

    void parse_param(const std::string& name, int name_column, const Line& l);
    void parse_buffer(const std::string& name, int name_column, const Line& l);
    void parse_result(const std::string& name, const Line& l);
    void parse_step(const Line& l);  // kernel_header_steps.cpp
    void parse_streams(const Line& l);  // kernel_header_steps.cpp
    void parse_devices(const Line& l);  // kernel_header_devices.cpp
    // `grade SUB [NAME]: value` (kernel_header_grade.cpp); `words` are the words before the `:`.
    void parse_grade(const std::vector<Word>& words, int column_base, const Line& l);

    const std::string& file_;
    KernelSpec& spec_;
    std::vector<Diagnostic>& diags_;
    HeaderState& state_;

private:
    void parse_param_body(const std::string& name, int name_column, const Line& l);
    bool check_constant_default(const ParamSpec& p, int column);
    void parse_buffer_body(const std::string& name, int name_column, const Line& l);
    bool parse_init(BufferSpec& b, const std::string& text, int line, int column);
    bool data_file_argument(const std::vector<Word>& args, int line, int column, std::string& file);
};

}  // namespace cp::header
