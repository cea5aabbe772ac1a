// The bad-input corpus: every file in tests/data/bad must fail to load with the message fragment
// listed in tests/data/bad/expected.txt, and never crash.
#include "fxmem/error.h"
#include "fxmem/io.h"
#include "test_paths.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

using namespace fxmem;

namespace {

// name -> fragment, from "name<TAB>fragment" lines; '#' starts a comment line.
std::map<std::string, std::string> read_expected() {
    std::ifstream in(kBad + "/expected.txt");
    std::map<std::string, std::string> out;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        const auto tab = line.find('\t');
        if (tab == std::string::npos) {
            ADD_FAILURE() << "expected.txt: no tab in line: " << line;
            continue;
        }
        EXPECT_TRUE(out.emplace(line.substr(0, tab), line.substr(tab + 1)).second) << "listed twice: " << line;
    }
    return out;
}

} // namespace

TEST(IoBad, EveryCorpusFileFailsWithItsMessage) {
    const auto expected = read_expected();
    ASSERT_GE(expected.size(), 80u);
    std::set<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(kBad)) {
        const std::string name = e.path().filename().string();
        // Subdirectories hold other documents' corpora (remat/: plans, tests/core/test_remat_cli.cpp).
        if (name != "expected.txt" && !e.is_directory()) files.insert(name);
    }
    for (const std::string& name : files) {
        SCOPED_TRACE(name);
        const auto it = expected.find(name);
        if (it == expected.end()) {
            ADD_FAILURE() << name << " has no entry in expected.txt";
            continue;
        }
        const std::string path = kBad + "/" + name;
        try {
            load_file(path);
            ADD_FAILURE() << name << " loaded without an error";
        } catch (const Error& e) {
            const std::string msg = e.what();
            EXPECT_EQ(msg.rfind(path, 0), 0u) << "the message must start with the path: " << msg;
            EXPECT_NE(msg.find(it->second), std::string::npos) << "expected '" << it->second << "' in: " << msg;
        }
    }
    for (const auto& [name, fragment] : expected)
        EXPECT_TRUE(files.count(name)) << "expected.txt lists " << name << " but there is no such file";
}

TEST(IoBad, CorpusFailsTheSameFromMemory) {
    // load_buffer with the file's text and its name as source: same message as load_file.
    for (const auto& [name, fragment] : read_expected()) {
        const std::string path = kBad + "/" + name;
        std::ifstream in(path, std::ios::binary);
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        try {
            load_buffer(text, name);
            ADD_FAILURE() << name << " loaded without an error";
        } catch (const Error& e) {
            EXPECT_EQ(std::string(e.what()).rfind(name + fragment, 0), 0u) << e.what();
        }
    }
}
