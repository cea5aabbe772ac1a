// The graph view's two modes over one area: "Time" (GraphView, x the profile step) and
// "Dataflow" (DataflowView, the layered graph by module), chosen by a small bar of two buttons
// above them or by a checkable action (View ▸ Dataflow, Ctrl+D). Only the shown mode draws; the
// Dataflow view lays out its scene when it is first shown.
#pragma once
#include <QWidget>

class DataflowView;
class QAction;
class QStackedWidget;
class QToolButton;

class GraphModePane : public QWidget {
    Q_OBJECT
public:
    enum class Mode { Time, Dataflow };
    // Takes both views as its children; `dataflowAction` (checkable) is kept in step with the mode.
    GraphModePane(QWidget* time, DataflowView* dataflow, QAction* dataflowAction, QWidget* parent = nullptr);
    Mode mode() const { return mode_; }
    QToolButton* button(Mode mode) const { return mode == Mode::Time ? timeButton_ : dataflowButton_; }

public slots:
    void setMode(Mode mode);

signals:
    void modeChanged(GraphModePane::Mode mode);

private:
    Mode mode_ = Mode::Time;
    QStackedWidget* stack_ = nullptr;
    QToolButton *timeButton_ = nullptr, *dataflowButton_ = nullptr;
    QAction* action_ = nullptr;
    QWidget* time_ = nullptr; // the GraphView
    DataflowView* dataflow_ = nullptr;
};
