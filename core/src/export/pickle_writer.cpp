#include "export/pickle_writer.h"

#include <stdexcept>
#include <string>

namespace fxmem::detail {

namespace {

constexpr std::size_t kBatch = 1000; // pickle.Pickler._BATCHSIZE

// The length of the valid UTF-8 sequence at s[i], or 0 when it is not one (overlong forms,
// surrogates and code points past U+10FFFF are invalid).
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    const unsigned char c = b(0);
    if (c < 0x80) return 1;
    const std::size_t left = s.size() - i;
    const auto cont = [&](std::size_t k) { return k < left && (b(k) & 0xC0) == 0x80; };
    if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if (!cont(1) || !cont(2)) return 0;
        if (c == 0xE0 && b(1) < 0xA0) return 0;  // overlong
        if (c == 0xED && b(1) >= 0xA0) return 0; // surrogate
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (!cont(1) || !cont(2) || !cont(3)) return 0;
        if (c == 0xF0 && b(1) < 0x90) return 0;  // overlong
        if (c == 0xF4 && b(1) >= 0x90) return 0; // past U+10FFFF
        return 4;
    }
    return 0;
}

} // namespace

PickleWriter::PickleWriter(std::ostream& out) : out_(out) {
    put('\x80');
    put('\x02');
}

void PickleWriter::put(char c) {
    out_.put(c);
    ++bytes_;
}

void PickleWriter::put(const void* data, std::size_t n) {
    out_.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
    bytes_ += n;
}

void PickleWriter::before_item() {
    if (open_.empty()) return;
    const Open& o = open_.back();
    switch (o.kind) {
    case Kind::List:
        if (o.written % kBatch == 0 && o.size - o.written > 1) put('(');
        break;
    case Kind::Dict:
        if (o.written % 2 == 0 && (o.written / 2) % kBatch == 0 && o.size - o.written / 2 > 1) put('(');
        break;
    case Kind::Tuple:
        if (o.written == 0 && o.size > 3) put('(');
        break;
    }
}

void PickleWriter::after_item() {
    if (open_.empty()) return;
    Open& o = open_.back();
    ++o.written;
    if (o.kind == Kind::Tuple) return;
    std::size_t done = o.written;
    if (o.kind == Kind::Dict) {
        if (done % 2) return; // a key: its value follows
        done /= 2;
    }
    if (done > o.size) throw std::logic_error("PickleWriter: more items than announced");
    if (done % kBatch != 0 && done != o.size) return;
    const bool one = (done - 1) % kBatch == 0; // a batch of one item
    if (o.kind == Kind::List)
        put(one ? 'a' : 'e');
    else
        put(one ? 's' : 'u');
}

void PickleWriter::none() {
    before_item();
    put('N');
    after_item();
}

void PickleWriter::boolean(bool value) {
    before_item();
    put(value ? '\x88' : '\x89');
    after_item();
}

void PickleWriter::integer(std::int64_t value) {
    before_item();
    unsigned char b[9];
    if (value >= 0 && value <= 0xff) {
        put('K');
        b[0] = static_cast<unsigned char>(value);
        put(b, 1);
    } else if (value >= 0 && value <= 0xffff) {
        put('M');
        b[0] = static_cast<unsigned char>(value);
        b[1] = static_cast<unsigned char>(value >> 8);
        put(b, 2);
    } else if (value >= -0x80000000LL && value <= 0x7fffffffLL) {
        put('J');
        const auto u = static_cast<std::uint32_t>(static_cast<std::int32_t>(value));
        for (int k = 0; k < 4; ++k) b[k] = static_cast<unsigned char>(u >> (8 * k));
        put(b, 4);
    } else {
        // LONG1 as Python's encode_long: (bit_length >> 3) + 1 bytes of two's complement, little
        // endian, less a redundant 0xff at the end of a negative number.
        const auto u = static_cast<std::uint64_t>(value);
        const std::uint64_t magnitude = value < 0 ? ~u + 1 : u;
        const int bits = 64 - __builtin_clzll(magnitude);
        std::size_t n = static_cast<std::size_t>(bits >> 3) + 1;
        for (std::size_t k = 0; k < 9; ++k)
            b[k] = k < 8 ? static_cast<unsigned char>(u >> (8 * k)) : (value < 0 ? 0xff : 0);
        if (value < 0 && n > 1 && b[n - 1] == 0xff && (b[n - 2] & 0x80)) --n;
        put('\x8a');
        put(static_cast<char>(n));
        put(b, n);
    }
    after_item();
}

void PickleWriter::string(std::string_view text) {
    before_item();
    std::string clean;
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t n = utf8_sequence(text, i);
        if (n == 0) {
            if (clean.empty()) clean.assign(text.substr(0, i));
            clean += "\xEF\xBF\xBD";
            ++i;
            continue;
        }
        if (!clean.empty()) clean.append(text.substr(i, n));
        i += n;
    }
    // `clean` is only filled from the first invalid byte on; before that the text is used as is.
    const std::string_view s = clean.empty() ? text : std::string_view(clean);
    if (s.size() > 0xffffffffu) throw std::length_error("PickleWriter: a string of 4 GiB or more");
    put('X');
    const auto n = static_cast<std::uint32_t>(s.size());
    const unsigned char len[4] = {static_cast<unsigned char>(n), static_cast<unsigned char>(n >> 8),
                                  static_cast<unsigned char>(n >> 16), static_cast<unsigned char>(n >> 24)};
    put(len, 4);
    put(s.data(), s.size());
    after_item();
}

void PickleWriter::begin_list(std::size_t size) {
    before_item();
    put(']');
    open_.push_back({Kind::List, size, 0});
}

void PickleWriter::begin_dict(std::size_t size) {
    before_item();
    put('}');
    open_.push_back({Kind::Dict, size, 0});
}

void PickleWriter::begin_tuple(std::size_t size) {
    before_item();
    open_.push_back({Kind::Tuple, size, 0});
}

void PickleWriter::end() {
    if (open_.empty()) throw std::logic_error("PickleWriter: end() without a container");
    const Open o = open_.back();
    const std::size_t expected = o.kind == Kind::Dict ? 2 * o.size : o.size;
    if (o.written != expected)
        throw std::logic_error("PickleWriter: a container closed with fewer items than announced");
    if (o.kind == Kind::Tuple) {
        if (o.size == 0)
            put(')');
        else if (o.size <= 3)
            put(static_cast<char>(0x85 + o.size - 1));
        else
            put('t');
    }
    open_.pop_back();
    after_item();
}

void PickleWriter::finish() {
    if (!open_.empty()) throw std::logic_error("PickleWriter: finish() with a container open");
    put('.');
}

} // namespace fxmem::detail
