// The schedule dock's suggestions: one line per single move that lowers the peak
// (fxmem::suggest_moves at the edited order's peak), elided in the middle so the numbers stay; a
// click asks for that move.
// As tall as its lines (five at most), so a one-line answer does not take the schedule's rows.
#pragma once
#include <fxmem/model.h>
#include <fxmem/optimize.h>

#include <QListWidget>

#include <cstdint>
#include <vector>

class EditedSchedule;

class SuggestionList : public QListWidget {
    Q_OBJECT
public:
    explicit SuggestionList(QWidget* parent = nullptr);
    // Asks core for the moves of `edited`'s order now (none without a graph) and lists them.
    void refresh(const EditedSchedule& edited);
    // An empty list, for `edited`'s graph.
    void forget(const EditedSchedule& edited);
    // The same moves again, in the byte units now.
    void refreshUnits(const EditedSchedule& edited);
    const std::vector<fxmem::MoveSuggestion>& moves() const { return moves_; }
    // `graph` names the nodes; nullptr: no graph open (an empty list).
    void showMoves(const std::vector<fxmem::MoveSuggestion>& moves, const fxmem::Graph* graph, std::int64_t peak);

signals:
    void suggestionClicked(std::size_t index);

private:
    std::vector<fxmem::MoveSuggestion> moves_;
};
