// fxmem-synth --nodes N [--seed S] [--no-pair] [--cpu-fraction F] -o FILE
// Writes a synthetic graph file (see bench/synth/synth.h). Exit 0 ok, 1 write failure, 2 bad usage.
#include "synth.h"

#include <charconv>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>

namespace {

int usage(std::string_view why) {
    std::cerr << "fxmem-synth: " << why << "\n"
              << "usage: fxmem-synth --nodes N [--seed S] [--no-pair] [--cpu-fraction F] -o FILE\n";
    return 2;
}

template <class T>
bool parse_number(std::string_view text, T& out) {
    const auto r = std::from_chars(text.data(), text.data() + text.size(), out);
    return r.ec == std::errc() && r.ptr == text.data() + text.size();
}

} // namespace

int main(int argc, char** argv) {
    fxmem::synth::Options options;
    std::string path;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        auto value = [&](std::string_view& out) {
            if (i + 1 >= argc) return false;
            out = argv[++i];
            return true;
        };
        std::string_view v;
        if (arg == "--nodes") {
            if (!value(v) || !parse_number(v, options.nodes) || options.nodes == 0)
                return usage("--nodes needs a positive integer");
        } else if (arg == "--seed") {
            if (!value(v) || !parse_number(v, options.seed)) return usage("--seed needs a non-negative integer");
        } else if (arg == "--cpu-fraction") {
            if (!value(v) || !parse_number(v, options.cpu_fraction) || options.cpu_fraction < 0 ||
                options.cpu_fraction > 1)
                return usage("--cpu-fraction needs a number in [0, 1]");
        } else if (arg == "--no-pair") {
            options.pair = false;
        } else if (arg == "-o" || arg == "--output") {
            if (!value(v)) return usage("-o needs a file name");
            path = v;
        } else if (arg == "-h" || arg == "--help") {
            usage("writes a synthetic fxmem graph file");
            return 0;
        } else {
            return usage("unknown argument '" + std::string(arg) + "'");
        }
    }
    if (path.empty()) return usage("-o FILE is required");

    const std::string json = fxmem::synth::generate_json(options);
    // Temporary file beside the target, then rename: a reader never sees half a file.
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out.write(json.data(), static_cast<std::streamsize>(json.size()));
        out.close();
        if (!out) {
            std::remove(tmp.c_str());
            std::cerr << "fxmem-synth: " << path << ": cannot write\n";
            return 1;
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        std::cerr << "fxmem-synth: " << path << ": cannot write\n";
        return 1;
    }
    return 0;
}
