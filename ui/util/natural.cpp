#include "util/natural.h"

#include <string_view>
#include <type_traits>

namespace {
template <class Char>
bool isDigit(Char c) {
    return c >= Char('0') && c <= Char('9');
}
// Code units compared unsigned, so UTF-8 bytes above 0x7f sort after ASCII as their characters do.
inline unsigned unit(char c) { return static_cast<unsigned char>(c); }
inline unsigned unit(char16_t c) { return c; }

template <class View>
int compareNatural(View a, View b) {
    using Char = std::remove_cvref_t<decltype(a[0])>;
    std::size_t i = 0, j = 0;
    const std::size_t na = static_cast<std::size_t>(a.size()), nb = static_cast<std::size_t>(b.size());
    while (i < na && j < nb) {
        if (isDigit<Char>(a[i]) && isDigit<Char>(b[j])) {
            // Skip leading zeros, then the longer run is the larger number; equal lengths compare
            // digit by digit. No integer conversion: runs may be longer than any integer type.
            std::size_t i0 = i, j0 = j;
            while (i0 < na && a[i0] == Char('0')) ++i0;
            while (j0 < nb && b[j0] == Char('0')) ++j0;
            std::size_t i1 = i0, j1 = j0;
            while (i1 < na && isDigit<Char>(a[i1])) ++i1;
            while (j1 < nb && isDigit<Char>(b[j1])) ++j1;
            if (i1 - i0 != j1 - j0) return i1 - i0 < j1 - j0 ? -1 : 1;
            for (std::size_t k = 0; k < i1 - i0; ++k)
                if (a[i0 + k] != b[j0 + k]) return unit(a[i0 + k]) < unit(b[j0 + k]) ? -1 : 1;
            // Same value: fewer leading zeros first, so the order stays total.
            if (i1 - i != j1 - j) return i1 - i < j1 - j ? -1 : 1;
            i = i1;
            j = j1;
            continue;
        }
        if (a[i] != b[j]) return unit(a[i]) < unit(b[j]) ? -1 : 1;
        ++i;
        ++j;
    }
    if (i < na) return 1;
    if (j < nb) return -1;
    return 0;
}
} // namespace

int naturalCompare(std::string_view a, std::string_view b) { return compareNatural(a, b); }
int naturalCompare(QStringView a, QStringView b) {
    return compareNatural(std::u16string_view(a.utf16(), static_cast<std::size_t>(a.size())),
                          std::u16string_view(b.utf16(), static_cast<std::size_t>(b.size())));
}
