// The debugger's probes, placed from clang's JSON syntax tree (debug_instrument.h).
//
//   instrument_for_debug   the pure part: JSON in, probes placed (find the kernel, walk its statements, insert)
//   kernel_ast_json        clang on the text, confined, its JSON out
#include "core/cpu/debug_instrument.h"

#include "core/worker/sandbox.h"
#include "core/worker/subprocess.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace cp {

namespace {
namespace dbgi {  // a name of its own: unity builds put this file beside others with helpers of the same names

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;  // in print order: clang leaves a location's file out when it is the last one's

// ---- locations -------------------------------------------------------------------------------------------------

// clang prints a location's "file" only when it differs from the previous location printed: walking the values in
// print order, each location gets the file it is in as "cp_file".
void annotate_files(Json& node, std::string& current) {
    if (node.is_object()) {
        if (node.contains("offset")) {
            if (auto f = node.find("file"); f != node.end() && f->is_string()) current = f->get<std::string>();
            node["cp_file"] = current;
        }
        for (auto& [key, value] : node.items())
            if (value.is_structured()) annotate_files(value, current);
    } else if (node.is_array()) {
        for (Json& v : node) annotate_files(v, current);
    }
}

struct Place {
    size_t offset = 0;
    size_t token = 0;     // the token's length there
    bool macro = false;   // inside a macro's expansion (the offset is where the macro is used)
};

// A location in the text's own file: a macro's is where it is used.
std::optional<Place> place_of(const Json& loc, const std::string& file) {
    if (!loc.is_object()) return std::nullopt;
    const Json* bare = &loc;
    bool macro = false;
    if (auto e = loc.find("expansionLoc"); e != loc.end()) {
        bare = &*e;
        macro = true;
    }
    if (!bare->contains("offset") || bare->value("cp_file", std::string()) != file) return std::nullopt;
    return Place{bare->value("offset", size_t(0)), bare->value("tokLen", size_t(0)), macro};
}

std::optional<Place> begin_of(const Json& n, const std::string& file) {
    auto r = n.find("range");
    if (r == n.end() || !r->contains("begin")) return std::nullopt;
    return place_of((*r)["begin"], file);
}
std::optional<Place> end_token_of(const Json& n, const std::string& file) {
    auto r = n.find("range");
    if (r == n.end() || !r->contains("end")) return std::nullopt;
    return place_of((*r)["end"], file);
}

// The text's lines as the user numbers them: `#line N` directives (source_prep.h writes them) renumber what follows.
class LineMap {
public:
    explicit LineMap(const std::string& text) {
        line_starts_.push_back(0);
        for (size_t i = 0; i < text.size(); ++i)
            if (text[i] == '\n') line_starts_.push_back(i + 1);
        for (size_t l = 0; l < line_starts_.size(); ++l) {
            size_t p = line_starts_[l];
            while (p < text.size() && (text[p] == ' ' || text[p] == '\t')) ++p;
            if (text.compare(p, 5, "#line") != 0) continue;
            p += 5;
            while (p < text.size() && text[p] == ' ') ++p;
            char* end = nullptr;
            const long n = std::strtol(text.c_str() + p, &end, 10);
            if (end == text.c_str() + p) continue;
            std::string file;
            const char* q = end;
            while (*q == ' ') ++q;
            if (*q == '"') {
                const char* close = std::strchr(q + 1, '"');
                if (close) file.assign(q + 1, close);
            }
            directives_.push_back({l, int(n), file});
        }
    }
    // 0-based physical line of an offset.
    size_t physical(size_t offset) const {
        return size_t(std::upper_bound(line_starts_.begin(), line_starts_.end(), offset) - line_starts_.begin()) - 1;
    }
    int user_line(size_t offset) const {
        const size_t l = physical(offset);
        const Directive* d = last_directive(l);
        return d ? d->number + int(l - d->line - 1) : int(l + 1);
    }
    // The file the first directive names (the kernel file), empty if none.
    std::string first_file() const { return directives_.empty() ? std::string() : directives_.front().file; }

private:
    struct Directive {
        size_t line;
        int number;
        std::string file;
    };
    const Directive* last_directive(size_t line) const {
        const Directive* found = nullptr;
        for (const Directive& d : directives_) {
            if (d.line >= line) break;
            found = &d;
        }
        return found;
    }
    std::vector<size_t> line_starts_;
    std::vector<Directive> directives_;
};

// Past whitespace, comments and preprocessor lines from `p`.
size_t skip_blank(const std::string& t, size_t p) {
    while (p < t.size()) {
        if (std::isspace(static_cast<unsigned char>(t[p]))) {
            ++p;
        } else if (t.compare(p, 2, "//") == 0) {
            p = t.find('\n', p);
            if (p == std::string::npos) return t.size();
        } else if (t.compare(p, 2, "/*") == 0) {
            p = t.find("*/", p + 2);
            if (p == std::string::npos) return t.size();
            p += 2;
        } else if (t[p] == '#' && (p == 0 || t[p - 1] == '\n')) {
            p = t.find('\n', p);
            if (p == std::string::npos) return t.size();
        } else {
            break;
        }
    }
    return p;
}

// ---- the kernel's statements -----------------------------------------------------------------------------------

struct Insertion {
    size_t offset;
    std::string text;
    int order;  // among insertions at one offset: closing braces (0) before probes (1)
};

struct Variable {
    std::string name;
};

bool is_named(const Json& n, const char* kind) { return n.is_object() && n.value("kind", std::string()) == kind; }

// A node's children (none: an empty array), without copying them.
const Json& inner_of(const Json& n) {
    static const Json none = Json::array();
    if (!n.is_object()) return none;
    auto in = n.find("inner");
    return in != n.end() && in->is_array() ? *in : none;
}

class Instrumenter {
public:
    Instrumenter(const std::string& text, const std::string& file) : text_(text), file_(file), lines_(text) {}

    // The variable a declaration adds to the scope, if the probes may pass it.
    static std::optional<Variable> passable(const Json& decl) {
        const std::string kind = decl.value("kind", std::string());
        if (kind != "VarDecl" && kind != "ParmVarDecl") return std::nullopt;
        const std::string name = decl.value("name", std::string());
        if (name.empty() || name.rfind("cp_", 0) == 0 || name.rfind("__", 0) == 0) return std::nullopt;
        const std::string storage = decl.value("storageClass", std::string());
        if (storage == "static" || storage == "extern" || decl.value("tls", std::string()) != "") return std::nullopt;
        std::string type;
        if (auto t = decl.find("type"); t != decl.end() && t->is_object()) type = t->value("qualType", std::string());
        if (type.find('&') != std::string::npos) return std::nullopt;  // references: the __shared__ arrays, aliases
        for (size_t open = type.find('['); open != std::string::npos; open = type.find('[', open + 1)) {
            const size_t close = type.find(']', open);
            if (close == std::string::npos) return std::nullopt;
            for (size_t i = open + 1; i < close; ++i) {
                const char c = type[i];
                if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return std::nullopt;  // a VLA
            }
            if (close == open + 1) return std::nullopt;  // `T []`: no size known
        }
        return Variable{name};
    }

    // The probe text for a statement at `offset` with `scope` in scope.
    std::string probe(size_t offset, const std::vector<Variable>& scope, DebugProbeSite& site) const {
        site.line = lines_.user_line(offset);
        std::string names, args;
        for (const Variable& v : scope) {
            if (!names.empty()) names += ',';
            names += v.name;
            args += ", " + v.name;
            site.variables.push_back(v.name);
        }
        return "::cp_shim::dbg_step(" + std::to_string(site.line) + ", \"" + names + "\"" + args + "); ";
    }

    void add_probe(size_t offset, const std::vector<Variable>& scope) {
        if (!probed_.insert(offset).second) return;  // a macro's statements all begin where it is used
        DebugProbeSite site;
        insertions_.push_back({offset, probe(offset, scope, site), 1});
        sites_.push_back({offset, std::move(site)});
    }

    static void declare(std::vector<Variable>& scope, const Variable& v) {
        scope.erase(std::remove_if(scope.begin(), scope.end(), [&](const Variable& s) { return s.name == v.name; }),
                    scope.end());
        scope.push_back(v);
    }
    static void declare_all(std::vector<Variable>& scope, const Json& decl_stmt) {
        if (!is_named(decl_stmt, "DeclStmt")) return;
        for (const Json& d : inner_of(decl_stmt))
            if (auto v = passable(d)) declare(scope, *v);
    }

    // Where a statement ends (past its `;` or `}`), for wrapping it in braces.
    std::optional<size_t> end_of(const Json& n) const {
        const std::string kind = n.value("kind", std::string());
        const Json& inner = inner_of(n);
        if (kind == "CompoundStmt") {
            auto e = end_token_of(n, file_);
            if (!e || e->macro || e->offset >= text_.size() || text_[e->offset] != '}') return std::nullopt;
            return e->offset + 1;
        }
        if (kind == "IfStmt" || kind == "ForStmt" || kind == "WhileStmt" || kind == "CXXForRangeStmt" ||
            kind == "SwitchStmt" || kind == "LabelStmt" || kind == "CaseStmt" || kind == "DefaultStmt" ||
            kind == "AttributedStmt") {
            if (inner.empty()) return std::nullopt;
            return end_of(inner.back());
        }
        auto e = end_token_of(n, file_);
        if (!e || e->offset >= text_.size()) return std::nullopt;
        size_t p = e->offset;
        if (text_[p] == ';' && !e->macro) return p + 1;
        p = skip_blank(text_, p + e->token);
        if (e->macro && p < text_.size() && text_[p] == '(') {  // a function-like macro's arguments
            int depth = 0;
            for (; p < text_.size(); ++p) {
                if (text_[p] == '(') ++depth;
                if (text_[p] == ')' && --depth == 0) break;
            }
            if (p >= text_.size()) return std::nullopt;
            p = skip_blank(text_, p + 1);
        }
        if (p < text_.size() && text_[p] == ';') return p + 1;
        return std::nullopt;
    }

    // A statement that is a body (a loop's, an if's branch): a block is walked; a single statement gets braces
    // around it and its probe.
    void body(const Json& n, std::vector<Variable> scope) {
        if (!n.is_object() || n.empty()) return;
        if (is_named(n, "CompoundStmt")) {
            block(n, scope, false);
            return;
        }
        if (is_named(n, "NullStmt")) return;
        auto b = begin_of(n, file_);
        if (b && pragma_at(b->offset)) {  // a loop with its pragma: not wrapped, its own body probed
            statement(n, scope);
            return;
        }
        auto e = end_of(n);
        if (!b || !e || *e <= b->offset) return;
        insertions_.push_back({b->offset, "{ ", 0});
        add_probe(b->offset, scope);
        insertions_.push_back({*e, " }", 0});
        if (!b->macro) statement(n, scope);
    }

    bool pragma_at(size_t offset) const { return offset < text_.size() && text_[offset] == '#'; }

    // The statements inside one statement (its bodies); `scope` is what is in scope before it.
    void statement(const Json& n, std::vector<Variable> scope) {
        const std::string kind = n.value("kind", std::string());
        const Json& inner = inner_of(n);
        if (inner.empty()) return;
        if (auto b = begin_of(n, file_); !b || b->macro) return;  // inside a macro: left as it is
        if (kind == "AttributedStmt") {  // [[likely]], `#pragma unroll`: the statement they qualify
            statement(inner.back(), scope);
        } else if (kind == "CompoundStmt") {
            block(n, scope, false);
        } else if (kind == "IfStmt") {
            const bool has_else = n.value("hasElse", false);
            const size_t branches = has_else ? 2 : 1;
            if (inner.size() < branches + 1) return;
            for (size_t i = 0; i + branches < inner.size(); ++i) {
                declare_all(scope, inner[i]);  // if (init; cond)
                if (auto v = passable(inner[i])) declare(scope, *v);  // if (T x = ...)
            }
            body(inner[inner.size() - branches], scope);
            if (has_else) body(inner.back(), scope);
        } else if (kind == "ForStmt" || kind == "WhileStmt" || kind == "CXXForRangeStmt") {
            for (size_t i = 0; i + 1 < inner.size(); ++i) {
                declare_all(scope, inner[i]);
                if (auto v = passable(inner[i])) declare(scope, *v);
            }
            body(inner.back(), scope);
        } else if (kind == "DoStmt") {
            body(inner.front(), scope);
        } else if (kind == "SwitchStmt") {
            for (size_t i = 0; i + 1 < inner.size(); ++i) {
                declare_all(scope, inner[i]);
                if (auto v = passable(inner[i])) declare(scope, *v);
            }
            if (is_named(inner.back(), "CompoundStmt")) block(inner.back(), scope, false);
        }
    }

    // A block's statements each get a probe (after their labels); `closing`: one more before its `}`.
    void block(const Json& n, std::vector<Variable> scope, bool closing) {
        // A line is one step: a simple statement after another on the same line runs in the first's step (a
        // static `__shared__` array is two statements of the CPU backend's on its line, source_prep.cpp).
        int simple_line = -1;
        for (const Json& child : inner_of(n)) {
            const Json* s = &child;
            // case 1: default: label: — the probe goes after them, before the statement they label
            while (is_named(*s, "CaseStmt") || is_named(*s, "DefaultStmt") || is_named(*s, "LabelStmt")) {
                const Json& in = inner_of(*s);
                if (in.empty()) break;
                s = &in.back();
            }
            if (is_named(*s, "CaseStmt") || is_named(*s, "DefaultStmt") || is_named(*s, "LabelStmt")) continue;
            if (auto b = begin_of(*s, file_)) {
                const int line = lines_.user_line(b->offset);
                // `#pragma unroll` before a loop: the loop's statement begins at the directive, where nothing can be
                // inserted (and the pragma must stay right before its loop): only its body is probed.
                if (!pragma_at(b->offset) && line != simple_line) add_probe(b->offset, scope);
                if (!b->macro) statement(*s, scope);
                const bool simple = is_named(*s, "DeclStmt") || is_named(*s, "BinaryOperator") ||
                                    is_named(*s, "CompoundAssignOperator") || is_named(*s, "CallExpr") ||
                                    is_named(*s, "UnaryOperator");
                simple_line = simple ? line : -1;
            } else {
                simple_line = -1;
            }
            declare_all(scope, *s);
        }
        if (closing) {
            auto e = end_token_of(n, file_);
            if (e && !e->macro && e->offset < text_.size() && text_[e->offset] == '}') add_probe(e->offset, scope);
        }
    }

    DebugInstrumented finish() {
        std::stable_sort(insertions_.begin(), insertions_.end(), [](const Insertion& a, const Insertion& b) {
            return a.offset != b.offset ? a.offset > b.offset : a.order > b.order;
        });
        DebugInstrumented out;
        out.text = text_;
        for (const Insertion& i : insertions_) out.text.insert(i.offset, i.text);
        std::stable_sort(sites_.begin(), sites_.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        for (auto& [offset, site] : sites_) out.sites.push_back(std::move(site));
        return out;
    }

private:
    const std::string& text_;
    std::string file_;
    LineMap lines_;
    std::vector<Insertion> insertions_;
    std::vector<std::pair<size_t, DebugProbeSite>> sites_;
    std::set<size_t> probed_;
};

// The JSON values clang printed one after the other.
std::vector<Json> parse_values(const std::string& json) {
    std::vector<Json> out;
    size_t start = std::string::npos;
    int depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < json.size(); ++i) {
        const char c = json[i];
        if (in_string) {
            if (c == '\\') ++i;
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == '"') in_string = true;
        else if (c == '{' || c == '[') {
            if (depth++ == 0) start = i;
        } else if (c == '}' || c == ']') {
            if (--depth == 0 && start != std::string::npos) {
                Json v = Json::parse(json.begin() + long(start), json.begin() + long(i) + 1, nullptr, false);
                if (v.is_discarded()) return {};
                out.push_back(std::move(v));
                start = std::string::npos;
            }
        }
    }
    return out;
}

// "ns::k<float>" -> "k".
std::string plain_name(const std::string& kernel) {
    std::string name = kernel.substr(0, kernel.find('<'));
    if (const size_t colon = name.rfind("::"); colon != std::string::npos) name = name.substr(colon + 2);
    return name;
}

// The kernel's definition: a FunctionDecl of that name with a body, in the text's own file.
const Json* find_definition(const Json& node, const std::string& name, const std::string& file) {
    if (node.is_object()) {
        if (is_named(node, "FunctionDecl") && node.value("name", std::string()) == name) {
            auto loc = node.find("loc");
            const bool here = loc != node.end() && place_of(*loc, file).has_value();
            const Json& inner = inner_of(node);
            const bool has_body = std::any_of(inner.begin(), inner.end(),
                                              [](const Json& c) { return is_named(c, "CompoundStmt"); });
            if (here && has_body) return &node;
        }
        if (auto in = node.find("inner"); in != node.end())
            for (const Json& c : *in)
                if (const Json* d = find_definition(c, name, file)) return d;
    }
    return nullptr;
}

// The file clang was given: every location of the dump in it names it (its first location prints it).
std::string main_file_of(const std::vector<Json>& values, const std::string& name) {
    for (const Json& v : values) {
        if (!is_named(v, "FunctionDecl") && !is_named(v, "FunctionTemplateDecl")) continue;
        if (v.value("name", std::string()) != name) continue;
        auto loc = v.find("loc");
        if (loc == v.end()) continue;
        const Json* bare = loc->contains("expansionLoc") ? &(*loc)["expansionLoc"] : &*loc;
        if (bare->contains("cp_file")) return (*bare)["cp_file"].get<std::string>();
    }
    return {};
}

// clang's JSON of a text names its file; here the one that holds a definition whose body's braces are at its
// offsets in `text`.
bool matches_text(const Json& def, const std::string& text, const std::string& file) {
    for (const Json& c : inner_of(def)) {
        if (!is_named(c, "CompoundStmt")) continue;
        auto b = begin_of(c, file);
        auto e = end_token_of(c, file);
        return b && e && b->offset < text.size() && e->offset < text.size() && text[b->offset] == '{' &&
               text[e->offset] == '}';
    }
    return false;
}

std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\'') out += "'\\''";
        else out += c;
    }
    return out + "'";
}

std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string find_clang() {
    if (const char* env = std::getenv("CUDA_PLAYGROUND_CLANG"); env && *env) return find_executable(env);
    for (const char* name : {"clang++", "clang++-19", "clang++-18", "clang++-17", "clang++-16", "clang++-15",
                             "clang++-14"}) {
        std::string found = find_executable(name);
        if (!found.empty()) return found;
    }
    return {};
}

}  // namespace dbgi
}  // namespace

Result<DebugInstrumented> instrument_for_debug(const std::string& prepared_text, const std::string& kernel,
                                               const std::string& clang_ast_json) {
    std::vector<dbgi::Json> values = dbgi::parse_values(clang_ast_json);
    if (values.empty())
        return make_error(ErrorKind::Internal, "clang's syntax tree of the kernel could not be read (it is not JSON)");
    std::string current;
    for (dbgi::Json& v : values) dbgi::annotate_files(v, current);
    const std::string name = dbgi::plain_name(kernel);
    const std::string file = dbgi::main_file_of(values, name);
    const dbgi::Json* def = nullptr;
    for (const dbgi::Json& v : values)
        if ((def = dbgi::find_definition(v, name, file))) break;
    if (!def)
        return make_error(ErrorKind::UserInput, "the kernel `" + name + "` has no definition in the file to step through",
                          "the debugger steps through a kernel whose body is in the kernel file itself");
    if (!dbgi::matches_text(*def, prepared_text, file))
        return make_error(ErrorKind::Internal, "clang's syntax tree does not describe the kernel's text");

    dbgi::Instrumenter in(prepared_text, file);
    std::vector<dbgi::Variable> scope;
    for (const dbgi::Json& c : dbgi::inner_of(*def)) {
        if (dbgi::is_named(c, "ParmVarDecl")) {
            if (auto v = dbgi::Instrumenter::passable(c)) dbgi::Instrumenter::declare(scope, *v);
        } else if (dbgi::is_named(c, "CompoundStmt")) {
            in.block(c, scope, true);
            break;
        }
    }
    return in.finish();
}

Result<std::string> kernel_ast_json(const std::string& prepared_text, const std::string& kernel,
                                    const ShimLocation& shim, const std::vector<std::string>& extra_options) {
    const std::string clang = dbgi::find_clang();
    if (clang.empty())
        return make_error(ErrorKind::Unsupported, "stepping through a kernel needs clang, which was not found",
                          "install clang (Debian: apt-get install clang), or set CUDA_PLAYGROUND_CLANG to one");
    std::string pattern = (std::filesystem::temp_directory_path() / "cp-debug-XXXXXX").string();
    if (!::mkdtemp(pattern.data()))
        return make_error(ErrorKind::Io, "no temporary folder could be made for the debugger's copy of the kernel");
    const std::filesystem::path work = pattern;
    std::error_code ec;
    struct Cleanup {
        std::filesystem::path dir;
        ~Cleanup() {
            std::error_code e;
            std::filesystem::remove_all(dir, e);
        }
    } cleanup{work};
    const std::filesystem::path source = work / "kernel.cpp";
    {
        std::ofstream out(source, std::ios::binary);
        out << prepared_text;
        if (!out) return make_error(ErrorKind::Io, "the debugger's copy of the kernel could not be written");
    }
    const HostCompileOptions options = host_compile_options(shim, extra_options);
    std::string command = "exec " + dbgi::shell_quote(clang);
    for (const std::string& f : options.flags) {
        if (f == "-shared" || f == "-fPIC" || f == "-g1" || f == "-O2") continue;
        command += " " + dbgi::shell_quote(f);
    }
    const std::string kernel_file = dbgi::LineMap(prepared_text).first_file();
    std::filesystem::path folder;
    if (!kernel_file.empty()) {
        folder = std::filesystem::path(kernel_file).parent_path();
        if (!folder.empty() && std::filesystem::is_directory(folder, ec)) command += " " + dbgi::shell_quote("-I" + folder.string());
    }
    command += " -w -fsyntax-only -Xclang -ast-dump=json -Xclang " + dbgi::shell_quote("-ast-dump-filter=" + dbgi::plain_name(kernel)) +
               " -x c++ " + dbgi::shell_quote(source.string()) + " > " + dbgi::shell_quote((work / "ast.json").string()) + " 2> " +
               dbgi::shell_quote((work / "messages.txt").string());

    FileAccessPolicy policy = host_compiler_policy(HostCompiler{clang, {}}, shim, work);
    policy.label = "clang";
    if (!folder.empty()) policy.read.push_back(folder);  // the kernel file's local headers
    ProcessOutcome run;
    run_confined(policy, [&] { run = run_process({"/bin/sh", "-c", command}, 60, {"TMPDIR=" + work.string()}); });
    if (!run.started) return make_error(ErrorKind::Unsupported, "clang could not be started: " + run.error);
    if (run.timed_out)
        return make_error(ErrorKind::Hang, "clang took more than 60 s to read the kernel for the debugger");
    if (run.exit_code != 0) {
        std::string messages = dbgi::read_file(work / "messages.txt");
        if (messages.size() > 4000) messages = messages.substr(0, 4000) + "...";
        return make_error(ErrorKind::Compile, "clang could not read the kernel for the debugger:\n" + messages,
                          "the kernel compiles for the CPU backend with g++; clang refused something in it");
    }
    return dbgi::read_file(work / "ast.json");
}

Result<DebugInstrumented> instrument_kernel_for_debug(const std::string& prepared_text, const std::string& kernel,
                                                      const ShimLocation& shim,
                                                      const std::vector<std::string>& extra_options) {
    auto json = kernel_ast_json(prepared_text, kernel, shim, extra_options);
    if (!json) return json.error();
    return instrument_for_debug(prepared_text, kernel, *json);
}

}  // namespace cp
