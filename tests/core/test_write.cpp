// write_file_atomically (every writer: save_file, save_schedule, optimize -o, the app's Save
// Schedule) never replaces what is not a regular file, writes through a symbolic link to its
// target, and keeps an existing file's permission bits.
#include "fxmem/error.h"
#include "fxmem/io.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

using namespace fxmem;
namespace fs = std::filesystem;

namespace {

std::string fresh_dir(const std::string& name) {
    const auto dir = fs::path(::testing::TempDir()) / ("fxmem_write_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir.string();
}

std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string error_of(const std::string& path, const std::string& text) {
    try {
        write_file_atomically(path, text);
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

std::size_t entries(const std::string& dir) {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
    return n;
}

} // namespace

TEST(Write, RefusesAFifoAndLeavesIt) {
    const std::string dir = fresh_dir("fifo");
    const std::string fifo = dir + "/pipe";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_EQ(error_of(fifo, "{}"), "cannot write '" + fifo + "': it is a FIFO (named pipe), not a regular file");
    EXPECT_THROW(resolve_write_target(fifo), Error);
    struct stat st {};
    ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode)); // still the FIFO, not a regular file put in its place
    EXPECT_EQ(entries(dir), 1u);       // no temporary file left
}

TEST(Write, RefusesADirectory) {
    const std::string dir = fresh_dir("dir");
    fs::create_directories(dir + "/taken");
    EXPECT_EQ(error_of(dir + "/taken", "x"), "cannot write '" + dir + "/taken': it is a directory, not a regular file");
    EXPECT_EQ(entries(dir), 1u);
}

TEST(Write, WritesThroughASymlinkToItsTarget) {
    const std::string dir = fresh_dir("link");
    fs::create_directories(dir + "/real");
    { std::ofstream(dir + "/real/out.json") << "old"; }
    ASSERT_EQ(::symlink("real/out.json", (dir + "/link.json").c_str()), 0);
    EXPECT_EQ(resolve_write_target(dir + "/link.json"), fs::canonical(dir + "/real/out.json").string());
    write_file_atomically(dir + "/link.json", "new");
    struct stat st {};
    ASSERT_EQ(::lstat((dir + "/link.json").c_str(), &st), 0);
    EXPECT_TRUE(S_ISLNK(st.st_mode));               // the link is kept ...
    EXPECT_EQ(read(dir + "/real/out.json"), "new"); // ... and its target written
    EXPECT_EQ(entries(dir), 2u);
    EXPECT_EQ(entries(dir + "/real"), 1u);

    // A link to a FIFO is refused like the FIFO; a dangling link is refused and creates nothing.
    ASSERT_EQ(::mkfifo((dir + "/real/pipe").c_str(), 0600), 0);
    ASSERT_EQ(::symlink("real/pipe", (dir + "/to_pipe").c_str()), 0);
    EXPECT_NE(error_of(dir + "/to_pipe", "x")
                  .find("it is a symbolic link to '" + fs::canonical(dir + "/real/pipe").string() +
                        "', which is a FIFO (named pipe), not a regular file"),
              std::string::npos);
    ASSERT_EQ(::symlink("real/missing.json", (dir + "/dangling").c_str()), 0);
    EXPECT_EQ(error_of(dir + "/dangling", "x"), "cannot write '" + dir +
                                                    "/dangling': it is a symbolic link to a file that does not exist "
                                                    "(give the target's path)");
    EXPECT_FALSE(fs::exists(dir + "/real/missing.json"));
}

TEST(Write, KeepsAnExistingFilesMode) {
    const std::string dir = fresh_dir("mode");
    const std::string path = dir + "/secret.json";
    { std::ofstream(path) << "old"; }
    ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
    write_file_atomically(path, "new");
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0600u);
    EXPECT_EQ(read(path), "new");
    ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
    write_file_atomically(path, "newer");
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0640u);

    // A new file: 0666 minus the umask.
    const mode_t mask = ::umask(022);
    write_file_atomically(dir + "/fresh.json", "x");
    ::umask(mask);
    ASSERT_EQ(::stat((dir + "/fresh.json").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0644u);
}

TEST(Write, ChecksTheDirectoryFirst) {
    const std::string dir = fresh_dir("nodir");
    EXPECT_EQ(error_of(dir + "/no/x.json", "x"),
              "cannot write '" + dir + "/no/x.json': the directory '" + dir + "/no' does not exist");
    EXPECT_EQ(error_of("", "x"), "cannot write '': empty path");
    { std::ofstream(dir + "/file") << ""; }
    EXPECT_EQ(error_of(dir + "/file/x.json", "x"),
              "cannot write '" + dir + "/file/x.json': '" + dir + "/file' is not a directory");
}
