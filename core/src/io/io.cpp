// File access for the I/O layer: reading a whole graph file, and the atomic write every writer uses.
#include "fxmem/io.h"

#include "fxmem/error.h"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
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
    if (S_ISLNK(mode)) return "a symbolic link";
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
    if (!S_ISREG(st.st_mode))
        throw Error(path + ": cannot read: it is " + std::string(file_kind(st.st_mode)) + ", not a regular file");
    Fd f;
    f.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (f.fd < 0) throw Error(path + ": cannot open: " + errno_text(errno));
    if (::fstat(f.fd, &st) != 0) throw Error(path + ": cannot read: " + errno_text(errno));
    if (!S_ISREG(st.st_mode))
        throw Error(path + ": cannot read: it is " + std::string(file_kind(st.st_mode)) + ", not a regular file");
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

GraphFile load_file(const std::string& path, const LoadControl& control) {
    const std::string text = read_regular_file(path);
    try {
        return load_buffer(text, path, control);
    } catch (const std::bad_alloc&) {
        throw Error(path + ": out of memory while loading (the file has " + std::to_string(text.size()) +
                    " bytes): file too large for memory");
    }
}

std::string resolve_write_target(const std::string& path) {
    namespace fs = std::filesystem;
    const auto refuse = [&](const std::string& why) -> Error {
        return Error("cannot write " + quoted_path(path) + ": " + why);
    };
    if (path.empty()) throw refuse("empty path");
    std::string target = path;
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0) {
        if (S_ISLNK(st.st_mode)) {
            // Written through: the link stays, the file it points to gets the new contents.
            char* resolved = ::realpath(path.c_str(), nullptr);
            if (!resolved) {
                const int err = errno;
                throw refuse(err == ENOENT
                                 ? "it is a symbolic link to a file that does not exist (give the target's path)"
                                 : "cannot follow the symbolic link: " + errno_text(err));
            }
            target = resolved;
            std::free(resolved);
            if (::stat(target.c_str(), &st) != 0) throw refuse("cannot follow the symbolic link: " + errno_text(errno));
            if (!S_ISREG(st.st_mode))
                throw refuse("it is a symbolic link to " + quoted_path(target) + ", which is " + file_kind(st.st_mode) +
                             ", not a regular file");
        } else if (!S_ISREG(st.st_mode)) {
            throw refuse(std::string("it is ") + file_kind(st.st_mode) + ", not a regular file");
        }
    } else if (errno != ENOENT && errno != ENOTDIR) { // the directory checks below say why
        throw refuse(errno_text(errno));
    }
    const fs::path t(target);
    const std::string name = t.filename().string();
    if (name.empty() || name == "." || name == "..") throw refuse("not a file name");
    const std::string dir = t.has_parent_path() ? t.parent_path().string() : std::string(".");
    struct stat ds {};
    if (::stat(dir.c_str(), &ds) != 0)
        throw refuse(errno == ENOENT ? "the directory " + quoted_path(dir) + " does not exist"
                                     : quoted_path(dir) + ": " + errno_text(errno));
    if (!S_ISDIR(ds.st_mode)) throw refuse(quoted_path(dir) + " is not a directory");
    if (::access(dir.c_str(), W_OK | X_OK) != 0) throw refuse("the directory " + quoted_path(dir) + " is not writable");
    return target;
}

bool same_file(const std::string& a, const std::string& b) {
    struct stat x {
    }, y{};
    return ::stat(a.c_str(), &x) == 0 && ::stat(b.c_str(), &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

void write_file_atomically(const std::string& path, std::string_view contents) {
    namespace fs = std::filesystem;
    const std::string target_path = resolve_write_target(path);
    const fs::path target(target_path);
    const std::string name = target.filename().string();
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    // An existing file keeps its permission bits.
    struct stat existing {};
    const bool exists = ::stat(target_path.c_str(), &existing) == 0;

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
    if (exists && ::fchmod(f.fd, existing.st_mode & 07777) != 0) fail("cannot keep the file's mode", errno);
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
    // Checked again just before the rename: a target swapped for a FIFO or a directory meanwhile
    // is still refused (a directory would make rename fail anyway).
    struct stat now {};
    if (::lstat(target_path.c_str(), &now) == 0 && !S_ISREG(now.st_mode)) {
        ::unlink(tmp.c_str());
        throw Error("cannot write " + quoted_path(path) + ": it is " + file_kind(now.st_mode) + ", not a regular file");
    }
    if (::rename(tmp.c_str(), target_path.c_str()) != 0) fail("rename failed", errno);
    // Make the rename itself durable; a failure here leaves a complete file, so it is not an error.
    Fd d;
    d.fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d.fd >= 0) ::fsync(d.fd);
}

} // namespace fxmem
