#include "sizes/symbollabel.h"

#include <fxmem/symbol_words.h>

#include <QObject>

QStringList symbolLabels(std::span<const fxmem::Symbol> symbols) {
    // Core names them (fxmem/symbol_words.h), so the Sizes bar and fxmem-cli's --vary agree.
    QStringList out;
    for (const std::string& w : fxmem::symbol_words(symbols)) out << QString::fromStdString(w);
    return out;
}

QString symbolTooltip(const fxmem::Symbol& symbol) {
    const QString source =
        symbol.source.empty() ? QObject::tr("no Dynamo source") : QString::fromStdString(symbol.source);
    return QObject::tr("%1 = %2, traced at %3, range %4")
        .arg(QString::fromStdString(symbol.name), source)
        .arg(symbol.hint)
        .arg(QString::fromStdString(symbol.range_text()));
}
