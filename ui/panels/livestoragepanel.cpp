#include "panels/livestoragepanel.h"

#include "models/livestoragemodel.h"
#include "state/viewstate.h"
#include "util/cachedcelldelegate.h"
#include "util/units.h"

#include <QElapsedTimer>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLoggingCategory>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

Q_DECLARE_LOGGING_CATEGORY(lcTiming)

LiveStoragePanel::LiveStoragePanel(ViewState* state, QWidget* parent) : QWidget(parent), state_(state) {
    auto* ll = new QVBoxLayout(this);
    ll->setContentsMargins(4, 4, 4, 4);
    header_ = new QLabel;
    header_->setTextFormat(Qt::RichText);
    header_->setWordWrap(true); // never sets the dock's minimum width
    ll->addWidget(header_);
    filter_ = new QLineEdit;
    filter_->setPlaceholderText(tr("Filter by name, module, role, device, dtype, reason…"));
    filter_->setClearButtonEnabled(true);
    ll->addWidget(filter_);
    model_ = new LiveStorageModel(this);
    proxy_ = new LiveStorageProxy(this);
    proxy_->setSourceModel(model_);
    table_ = new QTableView;
    table_->setModel(proxy_);
    // Repainted on every cursor step while most visible rows stay: cells drawn once, then blitted.
    table_->setItemDelegate(new CachedCellDelegate(table_));
    table_->setSortingEnabled(true);
    table_->sortByColumn(LiveStorageModel::SizeColumn, Qt::DescendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setAlternatingRowColors(true);
    table_->setWordWrap(false);
    table_->setTextElideMode(Qt::ElideMiddle);
    // Column widths from the first rows only: measuring tens of thousands of live rows would
    // stall the GUI thread for half a second.
    table_->horizontalHeader()->setResizeContentsPrecision(64);
    ll->addWidget(table_, 1);
    footer_ = new QLabel;
    footer_->setTextFormat(Qt::RichText);
    footer_->setWordWrap(true);
    ll->addWidget(footer_);

    filterTimer_ = new QTimer(this);
    filterTimer_->setSingleShot(true);
    filterTimer_->setInterval(300); // debounce typing
    connect(filter_, &QLineEdit::textChanged, filterTimer_, qOverload<>(&QTimer::start));
    connect(filterTimer_, &QTimer::timeout, this, [this] {
        proxy_->setFilterText(filter_->text());
        updateFooter();
    });
    connect(table_, &QTableView::clicked, this, [this](const QModelIndex& index) {
        const QModelIndex src = proxy_->mapToSource(index);
        const int seg = model_->data(src, LiveStorageModel::SegmentRole).toInt();
        const fxmem::NodeId n(model_->data(src, LiveStorageModel::AllocatorRole).toInt());
        if (n.valid()) state_->selectNode({seg, n}, true);
    });

    connect(state_, &ViewState::sceneChanged, this, [this](const std::shared_ptr<const Scene>& scene) {
        proxy_->setModuleFilter(QString());
        model_->setScene(scene);
        resizedOnce_ = false;
    });
    // ViewState decides which live set is shown (the cursor's, or the last one while an edit's
    // index is built): the rows follow it, as the graph view's marks do.
    connect(state_, &ViewState::shownLiveChanged, this, &LiveStoragePanel::refresh);
    connect(state_, &ViewState::moduleSelected, this, [this](const QString& module) {
        proxy_->setModuleFilter(module);
        updateFooter();
    });
    connect(state_, &ViewState::orderChanged, this, [this] {
        // Until the new order's live set is shown (shownLiveChanged) the rows stay; the step's
        // node and the plotted total may not.
        if (!state_->scene() || state_->cursorStep() < 0) return;
        updateHeader();
        if (!state_->liveFollowsAfterPaint()) updateFooter(); // else it follows with the rows it sums
    });
    connect(state_, &ViewState::orderedLiveChanged, this,
            [this] { model_->setOrderedLive(state_->sharedOrderedLive()); });
    connect(state_, &ViewState::unitsChanged, this, [this] {
        model_->refreshBytes();
        updateFooter();
    });
}

void LiveStoragePanel::refresh() {
    const std::shared_ptr<const LiveAtStep>& shown = state_->shownLive();
    if (!state_->scene() || !shown) return;
    QElapsedTimer clock;
    clock.start();
    model_->setLive(state_->cursorStep(), *shown);
    qCDebug(lcTiming, "live rows at step %lld: %d in %lld ms", static_cast<long long>(state_->cursorStep()),
            model_->rowCount(), static_cast<long long>(clock.elapsed()));
    if (!resizedOnce_ && model_->rowCount() > 0) {
        table_->resizeColumnsToContents();
        // A long name (elided to 160 characters, or a deep module path) must not push the other
        // columns out of the dock: wider text is elided in the middle, whole in the tooltip.
        const int cap = table_->fontMetrics().horizontalAdvance(QLatin1Char('x')) * 30;
        for (int c = 0; c + 1 < model_->columnCount(); ++c)
            if (table_->columnWidth(c) > cap) table_->setColumnWidth(c, cap);
        resizedOnce_ = true;
    }
    updateHeader();
    updateFooter();
}

void LiveStoragePanel::updateHeader() {
    const std::int64_t step = state_->cursorStep();
    header_->setText(tr("<b>Step %1</b> · %2").arg(step).arg(state_->describeStep(step).toHtmlEscaped()));
}

void LiveStoragePanel::updateFooter() {
    if (!state_->scene()) {
        footer_->clear();
        return;
    }
    const std::int64_t plotted = state_->plottedAt(state_->cursorStep());
    QString total;
    const int shown = proxy_->rowCount();
    if (shown == model_->rowCount()) {
        total = tr("<b>%1</b> in %L2 storages").arg(formatBytes(model_->totalBytes())).arg(model_->rowCount());
    } else {
        // What the filter shows, out of the step's total.
        std::int64_t bytes = 0;
        for (int r = 0; r < shown; ++r)
            bytes += proxy_->data(proxy_->index(r, 0), LiveStorageModel::BytesRole).toLongLong();
        total = tr("<b>%1</b> in %L2 storages shown, of %3 in %L4")
                    .arg(formatBytes(bytes))
                    .arg(shown)
                    .arg(formatBytes(model_->totalBytes()))
                    .arg(model_->rowCount());
    }
    if (model_->totalBytes() != plotted)
        total += tr(" <span style='color:red'>(plot: %1)</span>").arg(formatBytes(plotted));
    if (state_->liveStale())
        total += tr("<br><i>Updating for the edited order…</i>");
    else if (state_->orderedLive())
        total += tr("<br><i>Live storages of the edited order (the overlay curve).</i>");
    footer_->setText(total);
}
