// diff_peaks: two peaks compared, the difference attributed by role and by module, and the
// storages one peak has that the other lacks (fxmem/peak_diff.h).
#include "fxmem/peak_diff.h"

#include <algorithm>
#include <map>
#include <string_view>

namespace fxmem {

namespace {

// "a.b.c" at depth 2 is "a.b"; depth 0 keeps the name.
std::string at_depth(const std::string& module, std::uint32_t depth) {
    if (depth == 0) return module;
    std::size_t at = 0, from = 0;
    for (std::uint32_t d = 0; d < depth; ++d, from = at + 1)
        if ((at = module.find('.', from)) == std::string::npos) return module;
    return module.substr(0, at);
}

template <class Key>
std::vector<DiffRow> rows(const PeakPlace& a, const PeakPlace& b, Key key) {
    std::map<std::string, DiffRow> by_key;
    for (const PeakStorage& s : a.live) {
        DiffRow& r = by_key[key(s)];
        r.old_bytes += s.bytes;
    }
    for (const PeakStorage& s : b.live) {
        DiffRow& r = by_key[key(s)];
        r.new_bytes += s.bytes;
    }
    std::vector<DiffRow> out;
    out.reserve(by_key.size());
    for (auto& [k, r] : by_key) {
        r.key = k;
        out.push_back(std::move(r));
    }
    std::stable_sort(out.begin(), out.end(), [](const DiffRow& x, const DiffRow& y) {
        const std::int64_t dx = x.delta() < 0 ? -x.delta() : x.delta();
        const std::int64_t dy = y.delta() < 0 ? -y.delta() : y.delta();
        return dx > dy;
    });
    return out;
}

std::string match_key(const PeakStorage& s) { return s.module + '\0' + s.op + '\0' + s.shape; }

// Indices of `side`'s storages left over when the storages of both sides are paired by key.
std::vector<std::size_t> unmatched(const PeakPlace& side, const PeakPlace& other) {
    std::map<std::string, std::size_t> remaining;
    for (const PeakStorage& s : other.live) ++remaining[match_key(s)];
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < side.live.size(); ++i) {
        auto it = remaining.find(match_key(side.live[i]));
        if (it != remaining.end() && it->second > 0)
            --it->second;
        else
            out.push_back(i);
    }
    return out;
}

} // namespace

PeakDiff diff_peaks(PeakPlace old_side, PeakPlace new_side, std::uint32_t module_depth) {
    PeakDiff d;
    d.delta = new_side.peak - old_side.peak; // both in [0, 2^63-1]: no overflow
    d.moved = old_side.graph != new_side.graph || old_side.node != new_side.node;
    d.by_role = rows(old_side, new_side, [](const PeakStorage& s) { return std::string(to_string(s.role)); });
    d.by_module = rows(old_side, new_side, [&](const PeakStorage& s) { return at_depth(s.module, module_depth); });
    d.only_old = unmatched(old_side, new_side);
    d.only_new = unmatched(new_side, old_side);
    d.old_side = std::move(old_side);
    d.new_side = std::move(new_side);
    return d;
}

} // namespace fxmem
