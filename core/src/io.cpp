// File access for the I/O layer: reading a whole graph file, and the atomic write every writer uses.
#include "fxmem/io.h"

#include "fxmem/error.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <cstdint>
#include <filesystem>
#include <new>
#include <stdexcept>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fxmem {

namespace {

std::string quoted_path(const std::string& path) { return "'" + path + "'"; }

std::string errno_text(int err) { return std::strerror(err); }

// Closes a descriptor on every path out of a scope.
struct Fd {
    int fd = -1;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

const char* file_kind(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

[[noreturn]] void too_large(const std::string& path, std::uint64_t size) {
    throw Error(path + ": file too large for memory (" + std::to_string(size) + " bytes)");
}

} // namespace

std::string read_regular_file(const std::string& path) {
    // Refuse what is not a regular file before opening it: open() of a FIFO without a writer
    // blocks, and /dev/zero never ends. O_NONBLOCK covers a file swapped for a FIFO in between.
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw Error(path + ": cannot open: " + errno_text(errno));
    if (!S_ISREG(st.st_mode)) throw Error(path + ": cannot read: it is " + std::string(file_kind(st.st_mode)) + ", not a regular file");
    Fd f;
    f.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (f.fd < 0) throw Error(path + ": cannot open: " + errno_text(errno));
    if (::fstat(f.fd, &st) != 0) throw Error(path + ": cannot read: " + errno_text(errno));
    if (!S_ISREG(st.st_mode)) throw Error(path + ": cannot read: it is " + std::string(file_kind(st.st_mode)) + ", not a regular file");
    const auto size = static_cast<std::uint64_t>(st.st_size > 0 ? st.st_size : 0);
    // The text and the model built from it must fit: a file larger than the machine's memory
    // would be killed by the kernel mid-read instead of failing cleanly.
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0 && size > static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page))
        too_large(path, size);
    // Read straight into one buffer of the file's size, then on until EOF: st_size can be stale
    // (a file still being written).
    std::string text;
    try {
        text.assign(static_cast<std::size_t>(size), '\0');
    } catch (const std::bad_alloc&) {
        too_large(path, size);
    } catch (const std::length_error&) {
        too_large(path, size);
    }
    std::size_t used = 0;
    const auto read_into = [&](char* at, std::size_t room) -> std::size_t {
        for (;;) {
            const ssize_t n = ::read(f.fd, at, room);
            if (n >= 0) return static_cast<std::size_t>(n);
            if (errno != EINTR) throw Error(path + ": cannot read: " + errno_text(errno));
        }
    };
    while (used < text.size()) {
        const std::size_t n = read_into(text.data() + used, text.size() - used);
        if (n == 0) break;
        used += n;
    }
    text.resize(used);
    char chunk[1 << 16];
    try {
        while (const std::size_t n = read_into(chunk, sizeof chunk)) text.append(chunk, n);
    } catch (const std::bad_alloc&) {
        too_large(path, text.size());
    }
    return text;
}

GraphFile load_file(const std::string& path, const ProgressFn& progress) {
    const std::string text = read_regular_file(path);
    try {
        return load_buffer(text, path, progress);
    } catch (const std::bad_alloc&) {
        throw Error(path + ": out of memory while loading (the file has " + std::to_string(text.size()) +
                    " bytes): file too large for memory");
    }
}

void write_file_atomically(const std::string& path, std::string_view contents) {
    namespace fs = std::filesystem;
    const fs::path target(path);
    const std::string name = target.filename().string();
    if (name.empty() || name == "." || name == "..")
        throw Error("cannot write " + quoted_path(path) + ": not a file name");
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");

    // A unique temporary name beside the target, so that the rename stays on one file system.
    static std::atomic<unsigned> counter{0};
    std::string tmp;
    Fd f;
    for (int attempt = 0; f.fd < 0; ++attempt) {
        tmp = (dir / ("." + name + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++))).string();
        f.fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (f.fd < 0 && (errno != EEXIST || attempt > 100))
            throw Error("cannot write " + quoted_path(path) + ": " + errno_text(errno));
    }
    const auto fail = [&](const char* what, int err) {
        ::unlink(tmp.c_str());
        throw Error("cannot write " + quoted_path(path) + ": " + what + ": " + errno_text(err));
    };
    const char* p = contents.data();
    std::size_t left = contents.size();
    while (left > 0) {
        const ssize_t n = ::write(f.fd, p, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail("write failed", errno);
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    if (::fsync(f.fd) != 0) fail("fsync failed", errno);
    const int fd = f.fd;
    f.fd = -1;
    if (::close(fd) != 0) fail("close failed", errno);
    if (::rename(tmp.c_str(), path.c_str()) != 0) fail("rename failed", errno);
    // Make the rename itself durable; a failure here leaves a complete file, so it is not an error.
    Fd d;
    d.fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d.fd >= 0) ::fsync(d.fd);
}

} // namespace fxmem
