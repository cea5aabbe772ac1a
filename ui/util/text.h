// The core hands out names and targets as UTF-8 string_views; these turn one into a QString
// without a std::string on the way. Names come from files and may be huge (a 100 MB node name):
// views show them through elided(), which cuts the UTF-8 bytes before any QString is made.
#pragma once
#include <QString>

#include <cstddef>
#include <string_view>

inline QString toQString(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

// How many bytes of a name the views show at most (a long name's head, then "…").
inline constexpr std::size_t kMaxShownNameBytes = 160;

// The head of `s` cut at a UTF-8 character boundary, with "…" when it was longer than maxBytes,
// its control and bidi characters escaped (fxmem::escape_control, as fxmem-cli shows names):
// every name a view shows goes through here. Line breaks stay (a message of several lines).
QString elided(std::string_view s, std::size_t maxBytes = kMaxShownNameBytes);
// The same for a QString (file names, messages): the first maxChars characters and "…", escaped.
QString elided(const QString& s, qsizetype maxChars = static_cast<qsizetype>(kMaxShownNameBytes));
