// The schedule dock's Compare panel: orders A and B, two of the picker's sources (its boxes list
// them, as the picker's combo), and the nodes that moved between them (CompareModel), sortable by
// any column and opened by |effect|, the moves that change A's peak first. It computes the
// comparison (compare_orders) and follows edits while it is on.
#pragma once
#include "schedule/ordercompare.h"

#include <QWidget>

#include <memory>

class EditedSchedule;
class QComboBox;
class QSortFilterProxyModel;
class QTableView;
class SchedulePicker;

class ComparePanel : public QWidget {
    Q_OBJECT
public:
    // Adds its boxes to `sources`' mirrors.
    ComparePanel(EditedSchedule* edited, SchedulePicker* sources, QWidget* parent = nullptr);
    // Compares sources a and b (indexes of the picker) and shows the panel; indexes out of range
    // (or no graph) end the comparison.
    void compare(int a, int b);
    // Ends the comparison and hides the panel; changed() only when one was on.
    void clear();
    // Computes again for the orders now (after an edit), when on.
    void refresh();
    // The byte units changed: the moved nodes' bytes read anew, and the comparison's summary is
    // said again when `statusShown` (the status line's text) still is that summary.
    void refreshUnits(const QString& statusShown);
    bool isOn() const { return a_ >= 0; }
    std::shared_ptr<const OrderComparison> comparison() const { return comparison_; }
    QString name(int which) const; // 0: "A: name", 1: "B: name"; empty when off

signals:
    void pairPicked(int a, int b);
    void nodeClicked(fxmem::NodeId node);
    void changed(); // computed, or ended
    void status(const QString& text, bool refusal);

private:
    EditedSchedule* edited_;
    SchedulePicker* sources_;
    int a_ = -1, b_ = -1;
    std::shared_ptr<const OrderComparison> comparison_;
    QString summarySaid_; // the last summary emitted as status
    QString summary() const;
    QComboBox* boxA_ = nullptr;
    QComboBox* boxB_ = nullptr;
    CompareModel* model_ = nullptr;
    QTableView* view_ = nullptr;
};
