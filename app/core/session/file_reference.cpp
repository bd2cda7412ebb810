// FileReference: the reference program (section + generated entry point), compiled once per text, called
// with buffers in shared memory that the app fills and reads.
#include "core/session/file_reference.h"

#include "core/cpu/host_code.h"
#include "core/kernel_file/kernel_spec.h"
#include "core/kernel_file/reference_section.h"
#include "core/session/scalar_arg.h"

#include <chrono>
#include <cstring>

namespace cp {

std::string reference_program(const KernelFile& file) {
    const KernelSignature& ref = *file.reference_fn;
    // Each argument is read through a pointer of the parameter's own type (deduced from `&NAME`), as a kernel
    // launch passes them: args[i] points to a buffer's data pointer or to a scalar's bytes.
    return reference_section(file.source) +
           "\n#line 1 \"cp-reference-entry-point\"\n"
           "#include <cstddef>\n#include <type_traits>\n#include <utility>\n"
           "namespace cp_reference_detail {\n"
           "template <class R, class... A, std::size_t... I>\n"
           "void call(R (*f)(A...), void** args, std::index_sequence<I...>)\n"
           "{ f(*static_cast<std::remove_cv_t<std::remove_reference_t<A>>*>(args[I])...); }\n"
           "}\n"
           "extern \"C\" void " +
           std::string(kReferenceEntry) +
           "(void** args)\n"
           "{ cp_reference_detail::call(&" +
           ref.name + ", args, std::make_index_sequence<" + std::to_string(ref.params.size()) + ">{}); }\n";
}

FileReference::FileReference() = default;
FileReference::~FileReference() = default;

ReferenceOutcome FileReference::compute(const KernelFile& file, const std::map<std::string, double>& params,
                                        const std::map<std::string, const HostBuffer*>& initial) {
    ReferenceOutcome out;
    if (!file.reference_fn) {
        out.error =
            make_error(ErrorKind::Metadata, "the reference `" + file.spec.reference + "` was not found in the file",
                       "fix the error marked on the `reference:` line");
        return out;
    }
    const std::string name = file.reference_fn->name;
    const std::string fix =
        "fix the reference (under #ifdef PLAYGROUND_REFERENCE); the kernel's outputs were not checked";
    if (!runner_) {
        auto made = make_host_code_runner();
        if (!made) {
            out.error = make_error(made.error().kind, "the CPU reference cannot run here: " + made.error().message,
                                   made.error().hint);
            return out;
        }
        runner_ = std::move(*made);
    }
    const std::string program = reference_program(file);
    if (program != program_ || module_ == 0) {
        if (module_ != 0) runner_->release({{}, {module_}});
        module_ = 0;
        program_.clear();
        CompileResult c = runner_->compile({program, file.path.string(), {kReferenceMacro}});
        out.compile_ms = c.compile_ms;
        out.cache_hit = c.cache_hit;
        out.diagnostics = c.diagnostics;
        if (!c.ok) {
            std::string first = c.error ? c.error->message : "it did not compile";
            for (const auto& d : c.diagnostics) {
                if (d.severity != Severity::Error) continue;
                first = d.str();
                break;
            }
            out.error =
                make_error(ErrorKind::Compile, "the CPU reference `" + name + "` did not compile: " + first, fix);
            return out;
        }
        module_ = c.module;
        program_ = program;
    }

    std::vector<KernelArg> args;
    std::vector<BufferId> allocated;
    auto release = [&] { runner_->release({allocated, {}}); };
    for (const auto& p : file.reference_fn->params) {
        KernelArg arg;
        arg.name = p.name;
        if (p.is_pointer) {
            auto it = initial.find(p.name);
            if (it == initial.end() || !it->second) {
                release();
                out.error = make_error(ErrorKind::Metadata, "the CPU reference `" + name + "` takes `" + p.name +
                                                                "`, which has no contents");
                return out;
            }
            const HostBuffer& b = *it->second;
            auto id = runner_->allocate(p.name, std::max<uint64_t>(b.bytes.size(), 1));
            if (!id) {
                release();
                out.error = make_error(id.error().kind, "the CPU reference `" + name + "`: " + id.error().message,
                                       id.error().hint);
                return out;
            }
            allocated.push_back(*id);
            if (!b.bytes.empty()) std::memcpy(runner_->data(*id), b.bytes.data(), b.bytes.size());
            arg.buffer = *id;
        } else {
            auto v = params.find(p.name);
            auto bytes = scalar_bytes(p.base_type, v == params.end() ? 0.0 : v->second);
            if (!bytes) {
                release();
                out.error =
                    make_error(bytes.error().kind, "the CPU reference `" + name + "`: " + bytes.error().message, fix);
                return out;
            }
            arg.scalar = std::move(*bytes);
        }
        args.push_back(std::move(arg));
    }
    const HostCallResult r = runner_->call(module_, kReferenceEntry, args);
    out.run_ms = r.ms;
    if (!r.ok) {
        release();
        std::string what = r.error ? r.error->message : "it failed";
        // The crash is in the generated entry point's frame (the reference is inlined there): say "it".
        const std::string entry = "`" + std::string(kReferenceEntry) + "` ";
        for (size_t at = what.find(entry); at != std::string::npos; at = what.find(entry))
            what.replace(at, entry.size(), "it ");
        // The runner's kind (a crash, a hang); the reference's own process ending (an exit(), an abort) is its
        // code's fault, not a lost worker of the kernel's. The run's outcome decides with the Verify stage.
        ErrorKind kind = r.error ? r.error->kind : ErrorKind::Internal;
        if (kind == ErrorKind::WorkerLost) kind = ErrorKind::Fault;
        out.error = make_error(kind, "the CPU reference `" + name + "` failed: " + what, fix);
        return out;
    }
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i].buffer == 0) continue;
        const HostBuffer& b = *initial.at(args[i].name);
        const BufferSpec* spec = file.buffer(args[i].name);
        if (!spec || spec->direction == Direction::In) continue;
        HostBuffer e{b.name, b.type, std::vector<std::byte>(b.bytes.size())};
        if (!b.bytes.empty()) std::memcpy(e.bytes.data(), runner_->data(args[i].buffer), b.bytes.size());
        out.expected[b.name] = std::move(e);
    }
    release();
    return out;
}

}  // namespace cp
