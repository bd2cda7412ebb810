// Whether a file is a whole program (issue 36): a main() defined at namespace scope. Backend-neutral, so the
// command line and the window decide the same way before any backend is asked to run it.
#pragma once

#include <string>

namespace cp {

// The line of the main() defined at namespace scope (comments, strings and a lesson's reference section not
// counted), 0 when there is none.
int main_function_line(const std::string& source);

}  // namespace cp
