// The schedule dock's Compare panel: orders A and B (the editor fills both boxes with its sources,
// as its picker) and the moved nodes (CompareModel), sortable by any column and opened by
// |effect|, the moves that change A's peak first. It shows; the editor computes.
#pragma once
#include "schedule/ordercompare.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QSortFilterProxyModel;
class QTableView;

class ComparePanel : public QWidget {
    Q_OBJECT
public:
    explicit ComparePanel(QWidget* parent = nullptr);
    QComboBox* boxA() const { return a_; }
    QComboBox* boxB() const { return b_; }
    // Shows the pair picked (no pairPicked signal).
    void setPair(int a, int b);
    void setComparison(std::shared_ptr<const GraphAnalysis> analysis,
                       std::shared_ptr<const OrderComparison> comparison);

signals:
    void pairPicked(int a, int b);
    void nodeClicked(fxmem::NodeId node);

private:
    QComboBox* a_ = nullptr;
    QComboBox* b_ = nullptr;
    CompareModel* model_ = nullptr;
    QTableView* view_ = nullptr;
};
