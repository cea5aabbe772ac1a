#include "recompute/livetablemenu.h"

#include "models/livestoragemodel.h"
#include "recompute/recomputepanel.h"

#include <QMenu>
#include <QTableView>

void attachRematMenu(QTableView* table, RecomputePanel* panel) {
    table->setContextMenuPolicy(Qt::CustomContextMenu);
    QObject::connect(table, &QWidget::customContextMenuRequested, panel, [table, panel](const QPoint& pos) {
        const QModelIndex index = table->indexAt(pos);
        if (!index.isValid()) return;
        const fxmem::StorageId storage(index.data(LiveStorageModel::StorageRole).toInt());
        QString why;
        const QString text = panel->actionFor(storage, &why);
        QMenu menu(table);
        QAction* act = menu.addAction(text.isEmpty() ? QObject::tr("Recompute in backward") : text);
        act->setEnabled(!text.isEmpty());
        if (text.isEmpty()) {
            menu.addSeparator();
            menu.addAction(why)->setEnabled(false);
        }
        if (menu.exec(table->viewport()->mapToGlobal(pos)) == act) panel->toggleStorage(storage);
    });
}
