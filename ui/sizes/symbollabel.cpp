#include "sizes/symbollabel.h"

#include <QObject>
#include <QRegularExpression>
#include <QStringBuilder>

#include <vector>

namespace {

struct Parsed {
    QString word, input;
};

// L['tokens'].size()[0] and L['x'].shape[1]: the input's name and the dimension's usual meaning
// in a model's inputs (batch first, then sequence); other forms keep their text.
Parsed parse(const QString& source) {
    static const QRegularExpression re(QStringLiteral(R"(^L\[['"]([^'"]+)['"]\](?:\.size\(\)|\.shape)\[(\d+)\]$)"));
    const QRegularExpressionMatch m = re.match(source);
    if (!m.hasMatch()) return {};
    const int dim = m.captured(2).toInt();
    const QString input = m.captured(1);
    if (dim == 0) return {QObject::tr("batch"), input};
    if (dim == 1) return {QObject::tr("sequence"), input};
    return {QObject::tr("%1 dim %2").arg(input).arg(dim), input};
}

} // namespace

QStringList symbolLabels(std::span<const fxmem::Symbol> symbols) {
    std::vector<Parsed> parsed;
    for (const fxmem::Symbol& s : symbols) parsed.push_back(parse(QString::fromStdString(s.source)));
    QStringList out;
    for (std::size_t i = 0; i < symbols.size(); ++i) {
        const fxmem::Symbol& s = symbols[i];
        if (parsed[i].word.isEmpty()) {
            out << QString::fromStdString(s.source.empty() ? s.name : s.source);
            continue;
        }
        int same = 0;
        for (const Parsed& p : parsed) same += p.word == parsed[i].word ? 1 : 0;
        out << (same > 1 ? parsed[i].word % QStringLiteral(" (") % parsed[i].input % u')' : parsed[i].word);
    }
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
