// A flat open-addressing index from node name to node position, for the loader's hot path.
// std::unordered_map allocated a list node and a key copy per name and chased pointers on every
// lookup; this keeps one contiguous array of 8-byte slots and never copies a name: a slot holds a
// 32-bit tag of the name's hash and the node's position, and the name is compared (through the
// caller's accessor) only when the tags agree. The slot's position is derived from its tag, so
// growing the table re-places slots without touching a single name.
//
// Threads: insert() on one thread; find() may run on any number of threads at once (it counts
// nothing). The accessor passed to each call must stay valid during that call.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace fxmem {

namespace detail {
struct WorkCounters; // core/src/work_counters.h: what core's tests count
}

// 64-bit hash of a byte string: 8 bytes per multiply, then a full avalanche (the MurmurHash3
// finalizer) so names that differ only in a trailing counter ("add_41", "add_42") spread evenly.
// `seed` enters the state before the first byte: with a seed the file cannot know, names crafted
// to collide in the table (a quadratic load) collide no more than random names do.
inline std::uint64_t hash_name(std::string_view s, std::uint64_t seed = 0) noexcept {
    constexpr std::uint64_t kMul = 0x9E3779B97F4A7C15ull;
    std::uint64_t h = (0x243F6A8885A308D3ull ^ seed) ^ (s.size() * kMul);
    const char* p = s.data();
    std::size_t n = s.size();
    for (; n >= 8; p += 8, n -= 8) {
        std::uint64_t w;
        std::memcpy(&w, p, 8);
        h = (std::rotl(h, 23) ^ w) * kMul;
    }
    if (n > 0) {
        std::uint64_t w = 0;
        std::memcpy(&w, p, n);
        h = (std::rotl(h, 23) ^ w) * kMul;
    }
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ull;
    h ^= h >> 33;
    return h;
}

// The process's hash seed: random, drawn once on first use (tags never leave the process).
std::uint64_t draw_name_hash_seed() noexcept;
inline std::uint64_t name_hash_seed() noexcept {
    static const std::uint64_t seed = draw_name_hash_seed();
    return seed;
}

class NameIndex {
public:
    static constexpr std::uint32_t npos = 0xFFFFFFFFu;

    void clear() {
        slots_.clear();
        count_ = 0;
    }
    std::size_t size() const { return count_; }
    // Room for `n` names without growing.
    void reserve(std::size_t n) {
        if (n * 2 > slots_.size()) rehash(std::bit_ceil(n * 2));
    }

    // The 32 bits of the name's hash that the slots keep. Callers that know a name well before
    // they look it up compute this early and prefetch() its slot, hiding the cache miss that
    // dominates lookups in tables larger than the cache.
    static std::uint32_t tag_of(std::string_view name) { return tag_with_seed(name, name_hash_seed()); }
    // The tag under another seed (tests craft colliding names with a known one).
    static std::uint32_t tag_with_seed(std::string_view name, std::uint64_t seed) {
        const std::uint64_t h = hash_name(name, seed);
        return static_cast<std::uint32_t>(h ^ (h >> 32));
    }
    void prefetch(std::uint32_t tag) const {
        if (!slots_.empty()) __builtin_prefetch(&slots_[tag & (slots_.size() - 1)]);
    }

    // The position stored for `name`, or npos. name_of(position) gives the stored name.
    template <class NameOf>
    std::uint32_t find(std::string_view name, const NameOf& name_of) const {
        return find(name, tag_of(name), name_of);
    }
    template <class NameOf>
    std::uint32_t find(std::string_view name, std::uint32_t tag, const NameOf& name_of) const {
        if (slots_.empty()) return npos;
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t i = tag & mask;; i = (i + 1) & mask) {
            const Slot& s = slots_[i];
            if (s.position == npos) return npos;
            if (s.tag == tag && name_of(s.position) == name) return s.position;
        }
    }

    // Stores `position` for `name` and returns npos, or returns the position already stored.
    template <class NameOf>
    std::uint32_t insert(std::string_view name, std::uint32_t position, const NameOf& name_of) {
        return insert(name, tag_of(name), position, name_of);
    }
    template <class NameOf>
    std::uint32_t insert(std::string_view name, std::uint32_t tag, std::uint32_t position, const NameOf& name_of) {
        if ((count_ + 1) * 2 > slots_.size()) rehash(slots_.empty() ? 16 : slots_.size() * 2);
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t i = tag & mask;; i = (i + 1) & mask) {
            ++probes_;
            Slot& s = slots_[i];
            if (s.position == npos) {
                s = Slot{tag, position};
                ++count_;
                return npos;
            }
            if (s.tag == tag && name_of(s.position) == name) return s.position;
        }
    }

private:
    friend struct detail::WorkCounters;
    struct Slot {
        std::uint32_t tag = 0;
        std::uint32_t position = npos;
    };

    void rehash(std::size_t capacity) {
        std::vector<Slot> old(capacity);
        old.swap(slots_);
        const std::size_t mask = capacity - 1;
        for (const Slot& s : old) {
            if (s.position == npos) continue;
            std::size_t i = s.tag & mask;
            while (slots_[i].position != npos) i = (i + 1) & mask;
            slots_[i] = s;
        }
    }

    std::vector<Slot> slots_; // a power of two long, at most half full
    std::size_t count_ = 0;
    std::uint64_t probes_ = 0; // slots visited by the inserts (read by detail::WorkCounters)
};

} // namespace fxmem
