// Errors as values: Result<T> carries either a value or an Error with a plain-words message and a hint.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace cp {

struct Error {
    std::string message;  // what went wrong, in plain words
    std::string hint;     // how to fix it (may be empty)

    std::string full() const { return hint.empty() ? message : message + "\n  hint: " + hint; }
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

}  // namespace cp
