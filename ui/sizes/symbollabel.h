// What the Sizes bar calls a symbol: core's word for it (fxmem/symbol_words.h: "batch" for
// L['tokens'].size()[0], "sequence" for .size()[1]), else the source itself, else the symbol's
// name. Two symbols that would get the same word are told apart by their input's name.
#pragma once
#include <fxmem/symbolic.h>

#include <QString>
#include <QStringList>

#include <span>

QStringList symbolLabels(std::span<const fxmem::Symbol> symbols);
// "s52 = L['tokens'].size()[0], traced at 8, range [2, inf)".
QString symbolTooltip(const fxmem::Symbol& symbol);
