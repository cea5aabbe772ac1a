#include "util/theme.h"

#include <QApplication>
#include <QStyle>
#include <QStyleFactory>

namespace {
// The selection blue of both palettes: white text on it is 5.3:1 (WCAG AA); Fusion's own light
// one gives 3.7:1.
const QColor kSelection(40, 110, 180);
} // namespace

QPalette darkPalette() {
    QPalette p;
    const QColor window(45, 47, 51), base(32, 34, 37), alternate(40, 42, 46), text(225, 227, 230),
        disabled(125, 128, 133), link(110, 170, 255);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, alternate);
    p.setColor(QPalette::ToolTipBase, base);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, disabled);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::white);
    p.setColor(QPalette::Highlight, kSelection);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, link);
    p.setColor(QPalette::LinkVisited, link.darker(120));
    p.setColor(QPalette::Light, window.lighter(150));
    p.setColor(QPalette::Midlight, window.lighter(125));
    p.setColor(QPalette::Mid, window.darker(120));
    p.setColor(QPalette::Dark, window.darker(160));
    p.setColor(QPalette::Shadow, Qt::black);
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    p.setColor(QPalette::Disabled, QPalette::Highlight, window.lighter(130));
    return p;
}

bool applyTheme(const QString& name) {
    if (name != QLatin1String("dark") && name != QLatin1String("light")) return false;
    QStyle* fusion = QStyleFactory::create(QStringLiteral("Fusion"));
    QApplication::setStyle(fusion);
    const bool dark = name == QLatin1String("dark");
    QPalette palette = dark ? darkPalette() : fusion->standardPalette();
    if (!dark)
        for (auto group : {QPalette::Active, QPalette::Inactive})
            palette.setColor(group, QPalette::Highlight, kSelection);
    QApplication::setPalette(palette);
    return true;
}
