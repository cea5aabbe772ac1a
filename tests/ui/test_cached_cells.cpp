// CachedCellDelegate: the same pixels as the plain delegate (alternating rows, a selected row,
// elided text), and a repaint of unchanged cells draws none of them again.
#include "qtest_registry.h"
#include "util/cachedcelldelegate.h"

#include <QHeaderView>
#include <QStandardItemModel>
#include <QTableView>
#include <QtTest>

class TestCachedCells : public QObject {
    Q_OBJECT

    static void fill(QStandardItemModel& model) {
        model.setColumnCount(3);
        for (int r = 0; r < 12; ++r) {
            QList<QStandardItem*> row;
            row << new QStandardItem(QStringLiteral("%1 MiB").arg(r * 37))
                << new QStandardItem(QStringLiteral("a_rather_long_node_name_that_is_elided_in_the_middle_%1").arg(r))
                << new QStandardItem(QStringLiteral("float32 #%1").arg(r));
            row[0]->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            model.appendRow(row);
        }
    }

    static void setUp(QTableView& view, QStandardItemModel& model) {
        view.setModel(&model);
        view.setAlternatingRowColors(true);
        view.setWordWrap(false);
        view.setTextElideMode(Qt::ElideMiddle);
        view.setSelectionBehavior(QAbstractItemView::SelectRows);
        view.setColumnWidth(1, 120);
        view.resize(420, 300);
        view.selectRow(3);
    }

private slots:
    void samePixelsAsThePlainDelegate() {
        QStandardItemModel plainModel, cachedModel;
        fill(plainModel);
        fill(cachedModel);
        QTableView plain, cached;
        setUp(plain, plainModel);
        setUp(cached, cachedModel);
        auto* delegate = new CachedCellDelegate(&cached);
        cached.setItemDelegate(delegate);
        const QImage expected = plain.grab().toImage();
        const QImage first = cached.grab().toImage(); // drawn into the cache
        const int drawn = delegate->cellsDrawn();
        QVERIFY(drawn >= 3 * 8);                      // at least eight visible rows of three cells
        const QImage again = cached.grab().toImage(); // blitted from it
        QCOMPARE(first, expected);
        QCOMPARE(again, expected);
        QCOMPARE(delegate->cellsDrawn(), drawn);
    }

    void aChangedCellIsDrawnAgainAlone() {
        QStandardItemModel model;
        fill(model);
        QTableView view;
        setUp(view, model);
        auto* delegate = new CachedCellDelegate(&view);
        view.setItemDelegate(delegate);
        (void)view.grab();
        const int drawn = delegate->cellsDrawn();
        model.item(0, 0)->setText(QStringLiteral("999 MiB"));
        const QImage changed = view.grab().toImage();
        QCOMPARE(delegate->cellsDrawn(), drawn + 1);
        // And it shows what the plain delegate shows for the new text.
        QStandardItemModel plainModel;
        fill(plainModel);
        plainModel.item(0, 0)->setText(QStringLiteral("999 MiB"));
        QTableView plain;
        setUp(plain, plainModel);
        QCOMPARE(changed, plain.grab().toImage());
    }
};

FXMEM_QTEST(TestCachedCells)
#include "test_cached_cells.moc"
