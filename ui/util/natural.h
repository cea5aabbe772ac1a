// Natural order for names: runs of digits compare by value, so primals_4 sorts before primals_10
// and "[2, 4]" before "[2, 16]". Everything else compares by code unit. Works on std::string_view
// (names straight from the graph, no QString per comparison) and on QString.
#pragma once
#include <QString>

#include <string_view>

// <0, 0, >0 like strcmp.
int naturalCompare(std::string_view a, std::string_view b);
int naturalCompare(QStringView a, QStringView b);
inline bool naturalLess(std::string_view a, std::string_view b) { return naturalCompare(a, b) < 0; }
inline bool naturalLess(QStringView a, QStringView b) { return naturalCompare(a, b) < 0; }
