// Errors as values: Result<T> carries either a value or an Error with a plain-words message, a hint, and a
// kind (what happened, for code to decide on: the words are for people and may change freely).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace cp {

// What kind of failure an error is. It is set where the error is raised; expected outcomes, exit statuses and
// the window switch on it, never on the message's words. Add a kind at the end (its name goes on the wire and
// in the JSON) and give it a name in error_kind_name.
enum class ErrorKind : uint8_t {
    Unknown,         // not classified (the default); treated as the failure of the stage it ended
    UserInput,       // a value the user gave: an option, a parameter, a file name, an image
    Metadata,        // the kernel file's header or signature is wrong
    Compile,         // the compiler refused the source
    LaunchRefused,   // the launch was refused before any thread ran (block too large, too much shared memory)
    Fault,           // a thread crashed: illegal address, trap, assert, division by zero, illegal instruction
    OutOfBounds,     // a thread read or wrote outside a buffer (guard zone, guarded page)
    Hang,            // did not finish within the time limit and was stopped
    WorkerLost,      // the worker process died, answered nonsense, or is from another build
    SandboxRefusal,  // kernel code tried something the CPU backend's sandbox refuses (a system call)
    OutOfMemory,     // not enough device or host memory for the sizes asked
    Unsupported,     // this backend or driver cannot do what was asked
    Io,              // a file could not be read or written
    Race,            // threads read and write the same memory without a barrier between (racecheck, or a result
                     // that changes with the order a block's threads run in)
    Internal,        // a bug in CUDA Playground
};

// "out_of_bounds", "hang"...: the kind's name in the run's JSON and on the workers' wire.
constexpr const char* error_kind_name(ErrorKind k) {
    switch (k) {
        case ErrorKind::Unknown:
            return "unknown";
        case ErrorKind::UserInput:
            return "user_input";
        case ErrorKind::Metadata:
            return "metadata";
        case ErrorKind::Compile:
            return "compile";
        case ErrorKind::LaunchRefused:
            return "launch_refused";
        case ErrorKind::Fault:
            return "fault";
        case ErrorKind::OutOfBounds:
            return "out_of_bounds";
        case ErrorKind::Hang:
            return "hang";
        case ErrorKind::WorkerLost:
            return "worker_lost";
        case ErrorKind::SandboxRefusal:
            return "sandbox_refusal";
        case ErrorKind::OutOfMemory:
            return "out_of_memory";
        case ErrorKind::Unsupported:
            return "unsupported";
        case ErrorKind::Io:
            return "io";
        case ErrorKind::Race:
            return "race";
        case ErrorKind::Internal:
            return "internal";
    }
    return "unknown";
}
constexpr int kErrorKindCount = int(ErrorKind::Internal) + 1;

// The kind named `name` (error_kind_name's words); nullopt for a name this build does not know.
constexpr std::optional<ErrorKind> error_kind_from_name(std::string_view name) {
    for (int i = 0; i < kErrorKindCount; ++i)
        if (name == error_kind_name(ErrorKind(i))) return ErrorKind(i);
    return std::nullopt;
}

struct Error {
    std::string message;  // what went wrong, in plain words
    std::string hint;     // how to fix it (may be empty)
    ErrorKind kind = ErrorKind::Unknown;
    // The bare why, where the message words more around it: "no NVIDIA driver found (...)" of "no NVIDIA driver
    // found (...): the CUDA backend is unavailable; use --backend cpu". For a caller that says the rest in its own
    // words (`--backend auto` passing a backend over); empty when the message is all there is (why()).
    std::string reason = {};

    std::string full() const { return hint.empty() ? message : message + "\n  hint: " + hint; }
    const std::string& why() const { return reason.empty() ? message : reason; }
    Error with_kind(ErrorKind k) const& {
        Error e = *this;
        e.kind = k;
        return e;
    }
    Error with_kind(ErrorKind k) && {
        kind = k;
        return std::move(*this);
    }
};

template <class T>
class Result {
public:
    Result(T value) : v_(std::move(value)) {}            // NOLINT(google-explicit-constructor)
    Result(Error error) : v_(std::move(error)) {}         // NOLINT(google-explicit-constructor)

    bool ok() const { return v_.index() == 0; }
    explicit operator bool() const { return ok(); }
    T& value() { return std::get<0>(v_); }
    const T& value() const { return std::get<0>(v_); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() { return value(); }
    const T& operator*() const { return value(); }
    const Error& error() const { return std::get<1>(v_); }

private:
    std::variant<T, Error> v_;
};

inline Error make_error(std::string message, std::string hint = {}) {
    return Error{std::move(message), std::move(hint)};
}
inline Error make_error(ErrorKind kind, std::string message, std::string hint = {}) {
    return Error{std::move(message), std::move(hint), kind};
}

}  // namespace cp
