// fxmem --theme: the dark and light palettes, and the view colours derived from them, keep text
// and curves readable (WCAG contrast ratios, computed here from the colours).
#include "qtest_registry.h"
#include "util/colors.h"
#include "util/theme.h"

#include <QApplication>
#include <QtTest>

#include <cmath>

namespace {
double channel(double c) { return c <= 0.03928 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); }
double luminance(const QColor& c) {
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}
double contrast(const QColor& a, const QColor& b) {
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}
} // namespace

class TestTheme : public QObject {
    Q_OBJECT
private slots:
    void contrastHolds_data();
    void contrastHolds();
    void unknownNamesAreRefused();
};

void TestTheme::contrastHolds_data() {
    QTest::addColumn<QString>("theme");
    QTest::addColumn<bool>("dark");
    QTest::newRow("dark") << QStringLiteral("dark") << true;
    QTest::newRow("light") << QStringLiteral("light") << false;
}

void TestTheme::contrastHolds() {
    QFETCH(QString, theme);
    QFETCH(bool, dark);
    QVERIFY(applyTheme(theme));
    const QPalette p = QApplication::palette();
    QCOMPARE(colors::isDark(p), dark);
    // Body text: AAA (7:1); selected rows: AA (4.5:1).
    QVERIFY(contrast(p.color(QPalette::Text), p.color(QPalette::Base)) >= 7.0);
    QVERIFY(contrast(p.color(QPalette::WindowText), p.color(QPalette::Window)) >= 7.0);
    QVERIFY(contrast(p.color(QPalette::HighlightedText), p.color(QPalette::Highlight)) >= 4.5);
    QVERIFY(contrast(p.color(QPalette::Link), p.color(QPalette::Base)) >= 4.5);
    // Curves, markers and highlights on the plot's background: 3:1 for graphical objects.
    for (const QColor& c : {colors::curve(p), colors::edited(p), colors::peak(p), colors::live(p), colors::cursor(p)})
        QVERIFY2(contrast(c, p.color(QPalette::Base)) >= 3.0,
                 qPrintable(c.name() + QStringLiteral(" on ") + p.color(QPalette::Base).name()));
    for (fxmem::OpKind op : {fxmem::OpKind::Placeholder, fxmem::OpKind::GetAttr, fxmem::OpKind::CallFunction,
                             fxmem::OpKind::CallMethod, fxmem::OpKind::CallModule})
        QVERIFY2(contrast(colors::opColor(op, p), p.color(QPalette::Base)) >= 3.0,
                 qPrintable(colors::opColor(op, p).name()));
}

void TestTheme::unknownNamesAreRefused() {
    const QPalette before = QApplication::palette();
    QVERIFY(!applyTheme(QStringLiteral("blue")));
    QVERIFY(!applyTheme(QString()));
    QCOMPARE(QApplication::palette().color(QPalette::Window), before.color(QPalette::Window));
}

FXMEM_QTEST(TestTheme)
#include "test_theme.moc"
