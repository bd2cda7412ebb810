// `cuda-playground describe FILE`: prints a header proposed from the kernel's signature and body, or writes it
// into the file (--write) so that `run FILE` works unchanged.
#include "cli/args.h"
#include "cli/commands.h"
#include "core/kernel_file/describe.h"
#include "core/kernel_file/kernel_file.h"

#include <fstream>
#include <iostream>

namespace cp::cli {

namespace {

std::string describe_usage() {
    return R"(usage: cuda-playground describe FILE [--kernel NAME] [--write]

Proposes a metadata header for a kernel file that has none, from the kernel's signature and body: a
pointer only read is an input (a photo for 2D pixel kernels, in the layout it indexes; random values
otherwise), one only written an output, one both `inout`; sizes come from its indexing (packed RGB
`idx * 3 + c`, a matrix's `row * k + i`, `in[i + 1]`), a 2D launch when it uses blockIdx.y/threadIdx.y, the
block from a `__shared__ float tile[16][16]`, a `shared:` line from an `extern __shared__` array's use, and
scalars values by their role (n, width, radius, sigma...). Each guess is a `# guess:` line of the header.
Prints the header; with --write, puts it at the top of FILE, after which `cuda-playground run FILE` runs it.

  --kernel NAME   the kernel to describe when the file has several, or a template's instantiation,
                  e.g. --kernel 'reduce<float, 256>'
  --write         insert the header into FILE instead of printing it
)";
}

}  // namespace

int cmd_describe(const std::vector<std::string>& argv) {
    auto args = parse_args(argv, {{"--kernel", true}, {"--write"}});
    if (!args) return user_error(args.error());
    if (args->has("--help")) {
        std::cout << describe_usage();
        return 0;
    }
    if (args->positional.size() != 1)
        return user_error("`describe` needs exactly one FILE", "e.g. cuda-playground describe my_kernel.cu");
    const auto path = find_kernel_path(args->positional[0]);
    auto file = load_kernel_file(path);
    if (!file) return user_error(file.error());
    auto header = propose_header(*file, args->get("--kernel"));
    if (!header) return user_error(header.error());
    if (!args->has("--write")) {
        std::cout << *header;
        return 0;
    }
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << with_header(file->source, *header);
    out.close();
    if (!out) return user_error("cannot write `" + path.string() + "`", "check that the file and its folder are writable");
    std::cout << "wrote a header to " << path.string() << "; run it with: cuda-playground run " << path.string() << "\n";
    return 0;
}

}  // namespace cp::cli
