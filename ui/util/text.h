// The core hands out names and targets as UTF-8 string_views; this turns one into a QString
// without a std::string on the way.
#pragma once
#include <QString>

#include <string_view>

inline QString toQString(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }
