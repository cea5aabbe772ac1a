// Runs the real fxmem-cli binary for the CLI tests: exit status, stdout and stderr.
#pragma once
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace fxmem_test {

struct CliRun {
    int status = -1;
    std::string out, err;
    nlohmann::json json() const { return nlohmann::json::parse(out); }
};

inline std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

inline std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// `text` written to `path`, bytes as they are.
inline void write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// `s` with every `from` replaced by `to` (left to right; a replacement is not searched again).
inline std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
    return s;
}

inline std::string scratch_dir() {
    // One directory per process: ctest runs each test as its own process, in parallel.
    const auto dir = std::filesystem::path(::testing::TempDir()) / ("fxmem_cli_tests_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    return dir.string();
}

inline CliRun cli(const std::vector<std::string>& args) {
    const std::string dir = scratch_dir();
    std::string cmd = shell_quote(FXMEM_CLI_PATH);
    for (const std::string& a : args) cmd += " " + shell_quote(a);
    cmd += " >" + shell_quote(dir + "/out") + " 2>" + shell_quote(dir + "/err");
    const int raw = std::system(cmd.c_str());
    CliRun r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    r.out = slurp(dir + "/out");
    r.err = slurp(dir + "/err");
    return r;
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

} // namespace fxmem_test
