#include "schedule/suggestionlist.h"

#include "state/editedschedule.h"
#include "util/text.h"
#include "util/units.h"

#include <algorithm>

SuggestionList::SuggestionList(QWidget* parent) : QListWidget(parent) {
    setObjectName(QStringLiteral("suggestionList"));
    setToolTip(tr("Click a move to apply it (undoable)"));
    // One line per move, elided in the middle (the numbers at the end stay): no sideways scrolling.
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setTextElideMode(Qt::ElideMiddle);
    connect(this, &QListWidget::itemClicked, this,
            [this](QListWidgetItem* item) { emit suggestionClicked(static_cast<std::size_t>(row(item))); });
}

void SuggestionList::refresh(const EditedSchedule& edited) {
    moves_.clear();
    if (edited.schedule()) moves_ = fxmem::suggest_moves(*edited.schedule(), 5);
    showMoves(moves_, edited.analysis() ? &edited.analysis()->graph() : nullptr, edited.peak());
}

void SuggestionList::forget(const EditedSchedule& edited) {
    moves_.clear();
    showMoves(moves_, edited.analysis() ? &edited.analysis()->graph() : nullptr, edited.peak());
}

void SuggestionList::refreshUnits(const EditedSchedule& edited) {
    if (count() > 0) showMoves(moves_, edited.analysis() ? &edited.analysis()->graph() : nullptr, edited.peak());
}

void SuggestionList::showMoves(const std::vector<fxmem::MoveSuggestion>& moves, const fxmem::Graph* graph,
                               std::int64_t peak) {
    clear();
    if (graph)
        for (const fxmem::MoveSuggestion& m : moves)
            addItem(tr("Move '%1' from position %2 to %3: peak %4 → %5 (%6)")
                        .arg(elided(graph->node(m.node).name))
                        .arg(m.from)
                        .arg(m.to)
                        .arg(formatBytes(peak), formatBytes(m.peak_after), formatDelta(m.peak_after - peak, peak)));
    if (moves.empty() && graph) addItem(tr("No single move near the peak lowers it."));
    const int rows = std::clamp(count(), 1, 5);
    const int row = count() > 0 ? sizeHintForRow(0) : fontMetrics().height();
    setFixedHeight(rows * row + 2 * frameWidth());
}
