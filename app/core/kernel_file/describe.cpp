// Proposing a header for a pasted kernel from its signature and its body (kernel_body.h): directions from how
// each pointer is used, sizes from how it is indexed, a 2D launch when the body uses .y, the block from its
// __shared__ tiles, dynamic shared memory from an `extern __shared__` array, inputs with data that shows
// something (a photo for pixel kernels). Every guess is written into the header as a `# guess:` line.
#include "core/kernel_file/describe.h"

#include "core/kernel_file/kernel_body.h"
#include "core/kernel_file/kernel_file.h"
#include "core/text_util.h"

#include <algorithm>
#include <set>

namespace cp {

namespace {

// The photo that pixel kernels get: 451 x 300, so a launch that forgets the edge blocks shows.
constexpr const char* kPhoto = "chelsea.png";

bool in(const std::string& name, std::initializer_list<const char*> names) {
    return std::any_of(names.begin(), names.end(), [&](const char* n) { return name == n; });
}
bool is_width_name(const std::string& n) {
    return in(n, {"width", "w", "nx", "cols", "W", "ncols", "num_cols", "numCols", "columns", "imageW", "image_width"});
}
bool is_height_name(const std::string& n) {
    return in(n, {"height", "h", "ny", "rows", "H", "nrows", "num_rows", "numRows", "imageH", "image_height"});
}

// Everything describe works out about one kernel, then written as header lines.
struct Proposal {
    const KernelSignature& sig;
    KernelBody body;
    std::set<std::string> int_params;  // int/uint scalars
    bool two_d = false, pixel = false, guarded = true;
    bool square = false;         // 2D without a row count: every size param gets the same value
    std::string x_size, y_size;  // 2D: the params the launch covers (x: columns, y: rows)
    std::string size;            // 1D: the param the launch covers
    int block_x = 256, block_y = 1;
    std::string block_why;
    // A 1D kernel that never reads blockIdx and keeps one element per thread in a __shared__ array: one block does
    // the whole problem, which that array bounds (a course's single-block scan); its name.
    std::string one_block_array;
    std::string image_buffer;  // the first input filled from the photo: width/height follow it
    std::vector<std::string> guesses;

    explicit Proposal(const KernelSignature& s) : sig(s) {}

    // A `# guess:` line of the header: every choice describe makes is written down, to be checked.
    void guess(const std::string& g) { guesses.push_back("# guess: " + g); }

    const SignatureParam* param(const std::string& name) const {
        for (const auto& p : sig.params)
            if (p.name == name) return &p;
        return nullptr;
    }
    // The first int param among the words of `w` (a bound such as `k / TILE_WIDTH` gives `k`).
    std::string size_param_in(const Words& w) const {
        for (const auto& word : w)
            if (int_params.count(word)) return word;
        return {};
    }
    // The extent a variable runs over: its bound's param, else the launch axis it follows.
    std::string extent_of(const std::string& var) const {
        if (int_params.count(var)) return var;
        if (auto b = body.bounds.find(var); b != body.bounds.end())
            if (auto p = size_param_in(b->second); !p.empty()) return p;
        if (auto a = body.axis.find(var); a != body.axis.end()) return a->second == 1 ? y_size : x_size;
        return {};
    }
};

// Packed channels: `idx * 3 + c` reads three values per element (2, 3 or 4; else 1), and so does `rgb[off + c]`
// where `off = idx * 3` (KernelBody::scaled).
int channels_of(const PointerUse& use, const KernelBody& body) {
    for (const auto* list : {&use.reads, &use.writes})
        for (const Words& w : *list)
            for (size_t i = 0; i < w.size(); ++i) {
                if ((w[i] == "2" || w[i] == "3" || w[i] == "4") &&
                    ((i > 0 && w[i - 1] == "*") || (i + 1 < w.size() && w[i + 1] == "*")))
                    return w[i][0] - '0';
                if (i == 0 && body.scaled.count(w[i]) && (w.size() == 1 || (w.size() == 3 && w[1] == "+")))
                    return body.scaled.at(w[i]);
            }
    return 1;
}

// The largest `+ K` at the end of a read's index (`in[i + 1]`): the reads go K past the covered range. `where`
// gets that index.
int read_overhang(const PointerUse& use, Words& where) {
    int most = 0;
    for (const Words& w : use.reads)
        if (w.size() >= 2 && w[w.size() - 2] == "+" && !w.back().empty() &&
            std::isdigit(static_cast<unsigned char>(w.back()[0])) && std::atoi(w.back().c_str()) > most) {
            most = std::atoi(w.back().c_str());
            where = w;
        }
    return most;
}

// `row * k + ...`: the rows times the row length, when an index multiplies a variable by a size param.
std::string matrix_count(const Proposal& p, const Words& w) {
    int depth = 0;
    for (size_t i = 0; i < w.size(); ++i) {
        if (w[i] == "(") ++depth;
        if (w[i] == ")") --depth;
        if (w[i] != "*" || depth != 0 || i == 0 || i + 1 >= w.size()) continue;
        // P on the right of `*` and the rows on the left, or the other way round.
        for (int side = 0; side < 2; ++side) {
            const std::string length = side == 0 ? w[i + 1] : w[i - 1];
            if (!p.int_params.count(length)) continue;
            std::vector<std::string> vars;
            if (side == 0 && w[i - 1] == ")") {
                int d = 0;
                for (size_t j = i; j-- > 0;) {
                    if (w[j] == ")") ++d;
                    if (w[j] == "(" && --d == 0) break;
                    vars.push_back(w[j]);
                }
                std::reverse(vars.begin(), vars.end());
            } else {
                vars.push_back(side == 0 ? w[i - 1] : w[i + 1]);
            }
            for (const auto& v : vars)
                if (auto rows = p.extent_of(v); !rows.empty()) return rows + " * " + length;
        }
    }
    return {};
}

std::vector<std::string> split_words(const std::string& text) {
    std::vector<std::string> out;
    size_t at = 0;
    while (at < text.size()) {
        const size_t end = std::min(text.find(' ', at), text.size());
        if (end > at) out.push_back(text.substr(at, end - at));
        at = end + 1;
    }
    return out;
}

// `int A, class T = float>` -> {"int A", "class T = float"}: a template's parameters or arguments, up to the
// closing `>` (nested brackets kept whole), each trimmed; a default (` = ...`) is dropped.
std::vector<std::string> split_list(const std::string& text) {
    std::vector<std::string> out(1);
    int depth = 0;
    for (char c : text) {
        if (c == '>' && depth == 0) break;
        if (c == '<' || c == '(') ++depth;
        if (c == '>' || c == ')') --depth;
        if (c == ',' && depth == 0) {
            out.emplace_back();
            continue;
        }
        out.back() += c;
    }
    for (auto& item : out) item = trim(item.substr(0, item.find('=')));
    return out;
}

struct ScalarRole {
    std::string value, range, why;
};

ScalarRole scalar_role(const Proposal& p, const SignatureParam& param, ScalarType type) {
    const std::string& n = param.name;
    const bool is_float = type == ScalarType::Float || type == ScalarType::Double;
    std::string lower = n;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    auto has = [&](const char* part) { return lower.find(part) != std::string::npos; };
    if (!is_float &&
        (has("pitch") || has("stride") || lower == "ld" || lower == "lda" || lower == "ldb" || lower == "ldc") &&
        !p.x_size.empty())
        return {p.x_size, "", "a row's length in elements, as wide as `" + p.x_size + "` (no padding)"};
    if (has("radius") || lower == "r" || has("half"))
        return {is_float ? "3.0" : "3", "range 0..16", "a radius: 3, up to 16"};
    if (has("sigma")) return {"2.0", "range 0.1..10", "a Gaussian's width in pixels"};
    if (has("iter") || has("steps") || lower == "repeat") return {"10", "range 1..1000", "a number of iterations"};
    if (has("thresh")) return {is_float ? "0.5" : "128", "", "a threshold in the middle of the data's range"};
    if (is_float && (lower == "a" || has("alpha") || has("beta") || has("scale") || has("factor") || has("gain")))
        return {"2.0", "range -10..10 step 0.5", "a factor: 2, so the change is visible"};
    if (is_float && (has("offset") || lower == "b" || has("bias")))
        return {"0.5", "range -10..10 step 0.5", "an offset"};
    if (is_float && (has("dt") || has("eps"))) return {"0.01", "range 0..1", "a small step"};
    return {is_float ? "1.5" : "1", "", "no role known from its name or uses"};
}

// The kernel to describe, or why there is none: describe writes a header only for a file without one.
Result<KernelSignature> signature_to_describe(const KernelFile& file, const std::string& kernel) {
    if (file.spec.has_metadata)
        return make_error(ErrorKind::UserInput, "`" + file.path.string() + "` already has a `/*@playground` header",
                          "describe writes a header for a file without one; edit the existing header instead");
    std::vector<Diagnostic> diags;
    const auto sig = parse_signature(file.source, file.path.string(), diags, kernel, 0);
    if (!sig) {
        std::string why;
        for (const auto& d : diags)
            if (d.severity == Severity::Error) why += (why.empty() ? "" : "; ") + d.message;
        return make_error(ErrorKind::UserInput, "cannot describe `" + file.path.string() + "`: " + why,
                          "choose the kernel or instantiation with --kernel, e.g. --kernel 'reduce<float, 256>'");
    }
    return *sig;
}

// The int params and how the body uses each param, with the constants a template's instantiation fixes: the
// guesses below all start from these.
void read_body(Proposal& p, const std::string& source) {
    std::vector<std::string> pointer_names, scalar_names;
    for (const auto& sp : p.sig.params) {
        (sp.is_pointer ? pointer_names : scalar_names).push_back(sp.name);
        const auto t = sp.is_pointer ? std::nullopt : parse_scalar_type(sp.base_type);
        if (t && (*t == ScalarType::Int || *t == ScalarType::UInt)) p.int_params.insert(sp.name);
    }
    const KernelScan scan = scan_kernels(source);
    for (const ScannedKernel& k : defined_kernels(scan)) {
        if (k.name != p.sig.name) continue;
        p.body = read_kernel_body(source, k, pointer_names, scalar_names);
        // `template <int BLOCK_SIZE>` run as `MatrixMulCUDA<16>`: BLOCK_SIZE is 16 wherever it sizes a tile.
        const size_t open = p.sig.launch_name.find('<');
        if (!k.is_template || open == std::string::npos) break;
        const auto names = split_list(k.template_text.substr(k.template_text.find('<') + 1));
        const auto values = split_list(p.sig.launch_name.substr(open + 1));
        for (size_t i = 0; i < names.size() && i < values.size(); ++i) {
            const std::string name = names[i].substr(names[i].find_last_of(' ') + 1);
            if (!values[i].empty() && std::isdigit(static_cast<unsigned char>(values[i][0])))
                p.body.constants[name] = std::strtol(values[i].c_str(), nullptr, 0);
        }
    }
    if (!p.body.found) p.guess("no body to read: everything below comes from the signature alone");
}

// A 2D launch's columns and rows, from its guards, the row length its outputs are written with, then the
// params' names; without a size to launch over it falls back to 1D.
void choose_2d_sizes(Proposal& p, const SignatureParam* w, const SignatureParam* h) {
    const KernelBody& body = p.body;
    if (w && h) {
        p.x_size = w->name;
        p.y_size = h->name;
        p.pixel = true;
    }
    for (const auto& [var, bound] : body.bounds) {  // guards: `col < n`, `row < m`
        auto a = body.axis.find(var);
        if (a == body.axis.end()) continue;
        std::string& side = a->second == 1 ? p.y_size : p.x_size;
        if (side.empty()) side = p.size_param_in(bound);
    }
    if (p.x_size.empty())  // an output written at `row * n + col`: rows are n long
        for (const auto& [name, use] : body.pointers)
            for (const Words& wi : use.writes)
                for (size_t i = 0; i + 2 < wi.size() && p.x_size.empty(); ++i)
                    if (wi[i + 1] == "*") {  // `row * n` or `n * ty`
                        auto is_row = [&](const std::string& v) { return body.axis.count(v) && body.axis.at(v) == 1; };
                        if (is_row(wi[i]) && p.int_params.count(wi[i + 2])) p.x_size = wi[i + 2];
                        if (is_row(wi[i + 2]) && p.int_params.count(wi[i])) p.x_size = wi[i];
                    }
    for (const auto& sp : p.sig.params) {
        if (!p.int_params.count(sp.name)) continue;
        if (p.y_size.empty() && in(sp.name, {"m", "M", "rows", "height", "h", "ny"}) && sp.name != p.x_size)
            p.y_size = sp.name;
        if (p.x_size.empty() && in(sp.name, {"n", "N", "cols", "width", "w", "nx", "size"}) && sp.name != p.y_size)
            p.x_size = sp.name;
    }
    if (p.x_size.empty() && !p.int_params.empty()) p.x_size = p.y_size.empty() ? *p.int_params.begin() : p.y_size;
    if (p.y_size.empty()) {  // no row count of its own: square matrices, every size the same
        p.y_size = p.x_size;
        p.square = true;
    }
    if (p.x_size.empty()) p.two_d = false;  // no size to launch over: fall back to 1D with an `n`
}

// What a 1D launch covers, from the bounds check (`i < n`, or `i < width * height` for a 1D pass over an image),
// else a param named like a count. `size_params` gets the params the bound names.
void choose_1d_size(Proposal& p, const SignatureParam* w, const SignatureParam* h, std::set<std::string>& size_params) {
    const KernelBody& body = p.body;
    for (const auto& [var, bound] : body.bounds) {
        if (!body.axis.count(var) || !p.size.empty()) continue;
        const bool plain = std::all_of(bound.begin(), bound.end(), [&](const std::string& word) {
            return p.int_params.count(word) || word == "*" || word == "+" || word == "-" ||
                   std::isdigit(static_cast<unsigned char>(word[0]));
        });
        if (plain && !p.size_param_in(bound).empty()) {
            p.size = words_text(bound);
            for (const auto& word : bound)
                if (p.int_params.count(word)) size_params.insert(word);
        }
    }
    if (w && h && size_params.count(w->name) && size_params.count(h->name)) {  // one thread per pixel, in 1D
        p.pixel = true;
        p.x_size = w->name;
        p.y_size = h->name;
    }
    for (const char* name : {"n", "N", "count", "size", "len", "length", "numElements", "num_elements", "elements"})
        if (p.int_params.count(name) && p.size.empty()) p.size = name;
    if (p.size.empty())
        for (const auto& sp : p.sig.params)
            if (p.int_params.count(sp.name)) {
                p.size = sp.name;
                break;
            }
}

// 2D when the body uses .y (or, without a body, when it takes a width and a height), and the sizes the launch
// covers. Returns the int params that size the launch and the buffers.
std::set<std::string> choose_dimensions(Proposal& p) {
    const SignatureParam *w = nullptr, *h = nullptr;
    for (const auto& sp : p.sig.params) {
        if (!w && !sp.is_pointer && is_width_name(sp.name)) w = &sp;
        if (!h && !sp.is_pointer && is_height_name(sp.name)) h = &sp;
    }
    p.two_d = p.body.found ? p.body.two_d : (w && h);
    p.guarded = !p.body.found || p.body.guarded;
    if (p.two_d) choose_2d_sizes(p, w, h);
    std::set<std::string> size_params;
    if (!p.two_d) choose_1d_size(p, w, h, size_params);
    return size_params;
}

// A 2D block: the one a 2D __shared__ tile has one element per thread of (fewer rows when each thread fills
// several), else 16 x 16.
void choose_2d_block(Proposal& p) {
    const KernelBody& body = p.body;
    p.block_x = p.block_y = 16;
    for (const SharedArray& a : body.shared) {
        if (a.is_extern || a.dims.size() != 2) continue;
        auto ty = leading_constant(a.dims[0], body.constants), tx = leading_constant(a.dims[1], body.constants);
        if (ty && tx && *tx > 0 && *ty > 0 && *tx * *ty <= 1024) {
            p.block_x = int(*tx);
            p.block_y = int(*ty);
            p.block_why = "the shared tile `" + a.name + "[" + words_text(a.dims[0]) + "][" + words_text(a.dims[1]) +
                          "]` has one element per thread of a " + std::to_string(p.block_x) + " x " +
                          std::to_string(p.block_y) + " block";
            // Each thread fills several rows of the tile, ROWS apart (`threadIdx.y + j`, `j += ROWS`): a block of
            // ROWS rows covers it, and a taller one would index past the tile.
            if (!body.row_step.empty())
                if (auto rows = leading_constant(Words{body.row_step}, body.constants);
                    rows && *rows > 0 && *rows < *ty && *ty % *rows == 0) {
                    p.block_y = int(*rows);
                    p.block_why = "the shared tile `" + a.name + "[" + words_text(a.dims[0]) + "][" +
                                  words_text(a.dims[1]) + "]` is filled " + std::to_string(*ty / *rows) +
                                  " rows per thread (`threadIdx.y + j`, `j += " + body.row_step + "`): a " +
                                  std::to_string(p.block_x) + " x " + std::to_string(p.block_y) + " block";
                }
            break;
        }
    }
    if (p.block_why.empty()) p.block_why = "16 x 16, the usual block for a 2D launch (no __shared__ tile fixes it)";
}

// A 1D block: the size of a 1D __shared__ array with one element per thread, else 256.
void choose_1d_block(Proposal& p) {
    for (const SharedArray& a : p.body.shared) {
        if (a.is_extern || a.dims.size() != 1) continue;
        if (auto c = leading_constant(a.dims[0], p.body.constants); c && *c >= 32 && *c <= 1024) {
            p.block_x = int(*c);
            p.block_why =
                "the shared array `" + a.name + "[" + words_text(a.dims[0]) + "]` holds one element per thread";
            if (p.body.found && !p.body.block_index) {
                p.one_block_array = a.name + "[" + words_text(a.dims[0]) + "]";
                p.block_why += "; the kernel never reads blockIdx, so one block does the whole problem";
            }
            break;
        }
    }
    if (p.block_why.empty()) p.block_why = "256 threads, a usual 1D block";
}

// The block, then the guesses that say why it and the 2D launch were chosen.
void choose_block(Proposal& p) {
    if (p.two_d)
        choose_2d_block(p);
    else
        choose_1d_block(p);
    p.guess("block " +
            (p.two_d ? std::to_string(p.block_x) + " x " + std::to_string(p.block_y) : std::to_string(p.block_x)) +
            ": " + p.block_why);
    if (p.two_d)
        p.guess("2D launch over " + p.x_size + " x " + p.y_size + ": the kernel uses blockIdx.y/threadIdx.y" +
                (p.pixel ? ""
                         : "; `" + p.x_size + "` columns and `" + p.y_size + "` rows, from how it indexes its arrays"));
}

// The header's lines besides the guesses and the launch: params, buffers, views and dynamic shared memory.
struct HeaderLines {
    std::vector<std::string> params, buffers, views;
    std::string shared;
};

// Everything describe works out about one pointer param, then written as its buffer line and guess.
struct BufferGuess {
    const SignatureParam& sp;
    ElemType elem;
    const ElemTypeInfo& info;
    PointerUse use;
    std::string direction, why;    // in, out or inout, and why (with why its initial values are what they are)
    std::string count, count_why;  // its element count, and why when not the covered range
    int channels = 1;              // packed values per element

    BufferGuess(const SignatureParam& s, ElemType e, PointerUse u)
        : sp(s), elem(e), info(elem_info(e)), use(std::move(u)) {}
};

// `bins[data[i]]`: the pointers whose values are positions in another buffer, so they must stay small.
std::set<std::string> pointers_used_as_index(const KernelBody& body) {
    std::set<std::string> used_as_index;
    for (const auto& [name, use] : body.pointers)
        for (const auto* list : {&use.reads, &use.writes})
            for (const Words& wi : *list)
                for (size_t i = 0; i + 1 < wi.size(); ++i)
                    if (body.pointers.count(wi[i]) && wi[i + 1] == "[") used_as_index.insert(wi[i]);
    return used_as_index;
}

// in, out or inout from how the body uses the pointer; from `const` when the body never indexes it.
void guess_direction(BufferGuess& b, bool body_found) {
    const PointerUse& use = b.use;
    const bool seen = use.read || use.written || use.atomic;
    if (!seen) {
        b.direction = points_to_const(b.sp) || !body_found ? (points_to_const(b.sp) ? "in" : "out") : "inout";
        b.why = body_found
                    ? "the body never indexes it, so its use is not known; " +
                          std::string(points_to_const(b.sp) ? "`const`: an input" : "read and written, to be safe")
                    : (points_to_const(b.sp) ? "`const`: an input" : "not `const`: an output");
    } else if (use.atomic && !use.read && !use.written) {
        b.direction = "inout";
        b.why = "accumulated with atomics: read and written, starting at zero";
    } else if (use.read && (use.written || use.atomic)) {
        b.direction = "inout";
        b.why = "read and written: an input and an output, with random initial values";
    } else if (use.read) {
        b.direction = "in";
        b.why = "only read: an input";
    } else {
        b.direction = "out";
        b.why = "only written: an output, starting at zero";
    }
    if (use.other) b.why += " (also used in a way not followed, e.g. through another pointer: check it)";
}

// How many elements the buffer holds: the covered range, unless its indexing says otherwise (another buffer's
// values, one per block, a matrix's rows times its row length, packed channels, reads past the end).
void guess_count(const Proposal& p, BufferGuess& b, const std::string& covered, std::set<std::string>& size_params) {
    const PointerUse& use = b.use;
    b.channels = b.info.components == 1 ? channels_of(use, p.body) : 1;
    b.count = covered;
    bool per_block = false;
    for (const auto* list : {&use.writes, &use.reads})
        for (const Words& wi : *list)
            if (wi == Words{"blockIdx", ".", "x"}) per_block = true;
    bool indexed_by_values = false;
    for (const auto* list : {&use.writes, &use.reads})
        for (const Words& wi : *list)
            if (!wi.empty() && p.body.pointers.count(wi[0]) && wi.size() > 1 && wi[1] == "[") indexed_by_values = true;
    if (indexed_by_values) {
        b.count = "256";
        b.count_why = "indexed by another buffer's values, which are 0..255";
    } else if (per_block && !p.two_d) {
        b.count = "ceil(" + covered + " / " + std::to_string(p.block_x) + ")";
        b.count_why = "indexed by blockIdx.x: one element per block of " + std::to_string(p.block_x) +
                      " threads (change it with the block)";
    } else if (p.two_d && !p.pixel) {
        for (const auto* list : {&use.writes, &use.reads})
            for (const Words& wi : *list)
                if (b.count_why.empty())
                    if (auto m = matrix_count(p, wi); !m.empty()) {
                        b.count = m;
                        b.count_why = "indexed `[" + words_text(wi) + "]`";
                        for (const auto& part : {m.substr(0, m.find(' ')), m.substr(m.rfind(' ') + 1)})
                            size_params.insert(part);
                    }
    }
    if (b.channels > 1) {
        b.count += " * " + std::to_string(b.channels);
        const std::vector<Words>& uses = use.reads.empty() ? use.writes : use.reads;
        b.count_why = std::to_string(b.channels) + " values per element, packed, as `" + b.sp.name + "[" +
                      words_text(uses.back()) + "]` indexes them";
    }
    Words overhang_at;
    if (const int over = read_overhang(use, overhang_at);
        over > 0 && b.channels == 1 && !per_block && !indexed_by_values) {
        b.count += " + " + std::to_string(over);
        b.count_why = "reads up to " + std::to_string(over) + " past the covered range (`" + b.sp.name + "[" +
                      words_text(overhang_at) + "]`), so it holds that many more";
    }
}

// The initial values, chosen to show something: zeros for an output, the photo for a pixel kernel's input,
// else random values in a range that suits the type (0..255 when they index another buffer). Adds why to `b.why`.
std::string guess_init(Proposal& p, BufferGuess& b, bool small, int& seed) {
    const ElemType elem = b.elem;
    const ElemTypeInfo& info = b.info;
    const bool fillable_by_photo = elem == ElemType::UChar || elem == ElemType::UChar4 || elem == ElemType::UChar3 ||
                                   elem == ElemType::Float || elem == ElemType::Float4 || elem == ElemType::Float3;
    if (b.direction == "out" || (b.direction == "inout" && b.use.atomic && !b.use.read && !b.use.written))
        return "zeros";
    if (p.pixel && p.guarded && fillable_by_photo && (b.channels == 1 || b.channels == 3 || b.channels == 4) &&
        b.direction == "in") {
        if (p.image_buffer.empty()) p.image_buffer = b.sp.name;
        const std::string layout = b.channels == 3        ? "packed RGB, 3 values per pixel"
                                   : b.channels == 4      ? "packed RGBA, 4 values per pixel"
                                   : info.components == 4 ? "RGBA, one " + std::string(info.name) + " per pixel"
                                   : info.components == 3 ? "RGB, one " + std::string(info.name) + " per pixel"
                                                          : "gray, one value per pixel";
        b.why += "; a photo (" + std::string(kPhoto) + ") in the layout it indexes: " + layout +
                 (info.is_float ? ", 0..1" : "");
        return std::string("image(\"") + kPhoto + "\")";
    }
    const std::string range = info.is_float                                                  ? "min=-1, max=1"
                              : small || elem == ElemType::UChar || elem == ElemType::UChar4 ? "min=0, max=255"
                                                                                             : "min=0, max=100";
    const std::string init = "random(seed=" + std::to_string(seed++) + ", " + range + ")";
    b.why += std::string("; random values in ") + (info.is_float                                     ? "-1..1"
                                                   : small || range.find("255") != std::string::npos ? "0..255"
                                                                                                     : "0..100");
    if (small) b.why += "; its values index another buffer, so they stay in 0..255";
    return init;
}

// A view for an output: an image for a 2D one the size of the launch (transposed when written column by
// column), a plot for a 1D one; "" for others.
std::string view_line(const Proposal& p, const BufferGuess& b, const std::string& covered) {
    if ((p.two_d || p.pixel) && b.channels == 1 && (b.count == covered || b.count == p.y_size + " * " + p.x_size)) {
        bool transposed = false;  // `out[x * height + y]`: rows as long as the launch is high
        for (const Words& wi : b.use.writes)
            for (size_t i = 0; i + 1 < wi.size(); ++i)
                if (wi[i] == "*" && wi[i + 1] == p.y_size && p.y_size != p.x_size) transposed = true;
        return "view " + b.sp.name + ": image(" +
               (transposed ? p.y_size + ", " + p.x_size : p.x_size + ", " + p.y_size) + ")";
    }
    if (!p.two_d) return "view " + b.sp.name + ": plot";
    return {};
}

// What each pointer is: direction from use, count from indexing, initial values that show something; a buffer
// line and a guess for each, and a view for each output.
void describe_pointers(Proposal& p, std::set<std::string>& size_params, HeaderLines& lines) {
    const KernelBody& body = p.body;
    const std::set<std::string> used_as_index = pointers_used_as_index(body);
    const std::string covered = p.two_d
                                    ? (p.x_size == p.y_size ? p.x_size + " * " + p.x_size : p.x_size + " * " + p.y_size)
                                    : (p.size.empty() ? "n" : p.size);
    size_params.insert({p.x_size, p.y_size, p.size});
    int seed = 1;
    for (const auto& sp : p.sig.params) {
        if (!sp.is_pointer) continue;
        const auto elem = parse_elem_type(sp.base_type);
        if (!elem) {
            lines.buffers.push_back("# `" + sp.name + "` points to `" + sp.base_type +
                                    "`, which the playground cannot fill: change it to one of " +
                                    join(elem_type_names(), ", "));
            continue;
        }
        const auto found = body.pointers.find(sp.name);
        BufferGuess b(sp, *elem, found == body.pointers.end() ? PointerUse{} : found->second);
        guess_direction(b, body.found);
        guess_count(p, b, covered, size_params);
        const std::string init = guess_init(p, b, used_as_index.count(sp.name) > 0, seed);
        p.guess("`" + sp.name + "`: " + b.why + "; " + b.count + " elements" +
                (b.count_why.empty() ? "" : ": " + b.count_why));
        lines.buffers.push_back("buffer " + sp.name + ": " + b.info.name + "[" + b.count + "] " + b.direction + " " +
                                init);
        if (b.direction == "in") continue;
        if (std::string view = view_line(p, b, covered); !view.empty()) lines.views.push_back(view);
    }
}

// Why a size that is not a multiple of the block was chosen for a kernel without a bounds check, and which one
// would hide that: the threads past the edge go outside the arrays, and the run says where.
std::string unguarded_why(int multiple) {
    return "the kernel has no bounds check: with a size that is not a multiple of the block the threads past the "
           "edge go outside its arrays, and the run says which thread, line and element (the CPU backend at once). "
           "A multiple of the block (e.g. " + std::to_string(multiple) + ") runs as a program that launches exactly "
           "one thread per element does, and hides the missing check";
}

// A size param's value: the photo's width or height, distinct matrix sizes (so a swapped index shows), a count not
// a multiple of the block (so the bounds check is exercised, or its absence shows), or the size of the __shared__
// array a one-block kernel keeps the whole problem in.
ScalarRole size_role(const Proposal& p, const std::string& name, int& nth_size, int sizes_in_1d) {
    ScalarRole r;
    if (!p.image_buffer.empty() && (name == p.x_size || name == p.y_size)) {
        r.value = p.image_buffer + (name == p.x_size ? ".width" : ".height");
        r.why = "the photo's " + std::string(name == p.x_size ? "width" : "height");
    } else if (p.two_d) {
        // Rows, columns, then any other matrix size: distinct values, so a swapped index shows.
        const int which = p.square ? 0 : name == p.y_size ? 0 : name == p.x_size ? 1 : 2 + nth_size++;
        static const int sizes[] = {203, 301, 157, 97};
        static const int tiles[] = {12, 10, 8, 6};
        const int t = which == 0 ? p.block_y : p.block_x;
        r.value = std::to_string(sizes[std::min(which, 3)]);
        r.range = "range 1..4096";
        if (p.square)
            r.why = "the kernel takes no row count, so its matrices are taken as square (every size the same); ";
        r.why += p.guarded ? "a size not a multiple of the block, so the kernel's bounds check is exercised"
                           : unguarded_why(tiles[std::min(which, 3)] * t);
    } else if (sizes_in_1d > 1) {  // `i < width * height`
        static const int sizes[] = {301, 203, 157, 97};
        r.value = std::to_string(sizes[std::min(nth_size++, 3)]);
        r.range = "range 1..4096";
        r.why = "one of the sizes whose product the launch covers (`" + p.size + "`)";
    } else if (!p.one_block_array.empty()) {
        r.value = std::to_string(p.block_x);
        if (p.guarded) r.range = "range 1.." + std::to_string(p.block_x);  // without a check: exactly the block
        r.why = "the shared array `" + p.one_block_array + "` holds the whole problem (one block, one element per "
                "thread), so n is at most " + std::to_string(p.block_x);
    } else {
        r.value = "100003";
        r.range = "range 1..16777216";
        r.why = p.guarded ? "the number of elements, not a multiple of the block" : unguarded_why(391 * p.block_x);
    }
    return r;
}

// A param line and a guess for each scalar, its value by its role; a kernel that takes no size gets an `n` for
// the launch to cover.
std::vector<std::string> describe_scalars(Proposal& p, const std::set<std::string>& size_params) {
    std::vector<std::string> param_lines;
    if (!p.two_d && p.size.empty()) {
        p.size = "n";
        if (!p.one_block_array.empty()) {
            param_lines.push_back("param n: int = " + std::to_string(p.block_x) +
                                  (p.guarded ? " range 1.." + std::to_string(p.block_x) : std::string()));
            p.guess("`n` = " + std::to_string(p.block_x) + ": the kernel takes no size; the shared array `" +
                    p.one_block_array + "` holds the whole problem, one block of one element per thread");
        } else if (!p.guarded) {
            // No size and no bounds check: every thread of the launch owns an element, so the buffers are exactly
            // as long as the launch (what a program that launches one thread per element does).
            const int n = 391 * p.block_x;
            param_lines.push_back("param n: int = " + std::to_string(n) + " range " + std::to_string(p.block_x) +
                                  "..16777216 step " + std::to_string(p.block_x));
            p.guess("`n` = " + std::to_string(n) + ": the kernel takes no size and has no bounds check, so the header "
                    "adds one, a multiple of the block (" + std::to_string(p.block_x) + "): every thread of the launch "
                    "owns an element, as when a program launches exactly one thread per element. This hides the "
                    "missing check: with `if (i < n)` and a size parameter the kernel would run any size");
        } else {
            param_lines.push_back("param n: int = 100003 range 1..16777216");
            p.guess("`n`: the kernel takes no size, so the header adds one for the launch to cover");
        }
    }
    int nth_size = 0;
    int sizes_in_1d = 0;  // params in the 1D size expression: two for `width * height`
    for (const auto& word : split_words(p.size)) sizes_in_1d += int(p.int_params.count(word));
    for (const auto& sp : p.sig.params) {
        if (sp.is_pointer) continue;
        const auto scalar = parse_scalar_type(sp.base_type);
        if (!scalar) {
            param_lines.push_back("# `" + sp.name + "` has type `" + sp.base_type +
                                  "`; scalar parameters may be int, unsigned int, float or double");
            continue;
        }
        const bool is_size = p.int_params.count(sp.name) && size_params.count(sp.name);
        const ScalarRole role = is_size ? size_role(p, sp.name, nth_size, sizes_in_1d) : scalar_role(p, sp, *scalar);
        p.guess("`" + sp.name + "` = " + role.value + ": " + role.why);
        param_lines.push_back("param " + sp.name + ": " + scalar_type_name(*scalar) + " = " + role.value +
                              (role.range.empty() ? "" : " " + role.range));
    }
    return param_lines;
}

// Whether an `extern __shared__` array's indexing goes past one element per thread: `pout * blockDim.x + tid`,
// `tid + blockDim.x`, `2 * tid + 1`. The 2D linear index `threadIdx.y * blockDim.x + threadIdx.x` is one per thread.
bool past_one_per_thread(const KernelBody& body, const SharedArray& a) {
    auto row_index = [&](const Words& wi, size_t i) {
        return (wi[i] == "threadIdx" && i + 2 < wi.size() && wi[i + 2] == "y") ||
               (body.axis.count(wi[i]) && body.axis.at(wi[i]) == 1);
    };
    bool twice = false;
    for (const Words& wi : a.indexes)
        for (size_t i = 0; i < wi.size(); ++i) {
            if (wi[i] == "2" && ((i > 0 && wi[i - 1] == "*") || (i + 1 < wi.size() && wi[i + 1] == "*"))) twice = true;
            if (wi[i] != "blockDim") continue;
            const bool times_row = (i >= 2 && wi[i - 1] == "*" &&
                                    (row_index(wi, i - 2) || (i >= 4 && wi[i - 2] == "y" && row_index(wi, i - 4)))) ||
                                   (i + 4 < wi.size() && wi[i + 3] == "*" && row_index(wi, i + 4));
            if (!times_row) twice = true;
        }
    return twice;
}

// The `shared:` line for dynamic shared memory, sized from how the `extern __shared__` array is indexed, with
// its guess; "" for a kernel without one.
std::string shared_memory_line(Proposal& p) {
    for (const SharedArray& a : p.body.shared) {
        if (!a.is_extern) continue;
        const bool twice = past_one_per_thread(p.body, a);
        const auto elem = parse_elem_type(a.type);
        const uint32_t bytes = elem ? elem_info(*elem).size : 4;
        const std::string threads = p.two_d ? "block.x * block.y" : "block.x";
        p.guess("dynamic shared memory for `extern __shared__ " + a.type + " " + a.name + "[]`: " +
                (twice ? "2 * " : "") + (p.two_d ? "blockDim.x * blockDim.y" : "blockDim.x") + " * sizeof(" + a.type +
                "), " + (twice ? "as its indexing goes past one element per thread" : "one element per thread"));
        return "shared: " + std::string(twice ? "2 * " : "") + threads + " * " + std::to_string(bytes);
    }
    return {};
}

// The `/*@playground ... */` block: title and about, the guesses and what is not known, then the params,
// buffers, launch and views.
std::string header_text(const Proposal& p, const std::string& kernel, const HeaderLines& hl) {
    std::vector<std::string> lines;
    lines.push_back("title: " + p.sig.name);
    lines.push_back("about: A header proposed by `cuda-playground describe` from the signature and body of `" +
                    p.sig.launch_name + "`. Check the guesses below, then write what the kernel teaches here.");
    lines.insert(lines.end(), p.guesses.begin(), p.guesses.end());
    lines.push_back("# not known: what the kernel should compute. Add a `reference:` (kernels/FORMAT.md) to check it");
    if (!kernel.empty() || p.sig.launch_name != p.sig.name) lines.push_back("kernel: " + p.sig.launch_name);
    lines.insert(lines.end(), hl.params.begin(), hl.params.end());
    lines.insert(lines.end(), hl.buffers.begin(), hl.buffers.end());
    if (p.two_d) {
        lines.push_back("block: " + std::to_string(p.block_x) + " x " + std::to_string(p.block_y));
        lines.push_back("grid: ceil(" + p.x_size + " / block.x) x ceil(" + p.y_size + " / block.y)");
        if (!hl.shared.empty()) lines.push_back(hl.shared);
        lines.push_back("problem: " + p.x_size + " x " + p.y_size);
    } else {
        lines.push_back("block: " + std::to_string(p.block_x));
        // A one-block kernel (it never reads blockIdx): another block would only redo the same work.
        lines.push_back(p.one_block_array.empty() ? "grid: ceil(" + p.size + " / block.x)" : std::string("grid: 1"));
        if (!hl.shared.empty()) lines.push_back(hl.shared);
        lines.push_back("problem: " + p.size);
    }
    lines.insert(lines.end(), hl.views.begin(), hl.views.end());
    std::string out = "/*@playground\n";
    for (const auto& l : lines) out += l + "\n";
    return out + "*/\n";
}

}  // namespace

Result<std::string> propose_header(const KernelFile& file, const std::string& kernel) {
    const auto sig = signature_to_describe(file, kernel);
    if (!sig) return sig.error();
    Proposal p(*sig);
    read_body(p, file.source);
    std::set<std::string> size_params = choose_dimensions(p);
    choose_block(p);
    HeaderLines lines;
    describe_pointers(p, size_params, lines);
    lines.params = describe_scalars(p, size_params);
    lines.shared = shared_memory_line(p);
    return header_text(p, kernel, lines);
}

std::string with_header(const std::string& source, const std::string& header) {
    return header + source;
}

}  // namespace cp
