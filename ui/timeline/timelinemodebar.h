// The timeline's mode switch: the plain total, stacked by storage role, or stacked by module at a
// chosen depth. A small bar the main window places next to the timeline; it only says what the
// user chose (modeChanged), the caller computes the bands (StackedBands) and hands them to
// TimelinePlot::setStackedBands.
#pragma once
#include <QWidget>

#include <cstddef>

class QComboBox;
class QSpinBox;

class TimelineModeBar : public QWidget {
    Q_OBJECT
public:
    enum class Mode { Total, ByRole, ByModule };
    explicit TimelineModeBar(QWidget* parent = nullptr);

    Mode mode() const;
    int depth() const; // module depth, 1 = top-level modules
    // The plain curve for small graphs (under 500 nodes) and graphs without any module or role
    // information to show; stacked by role otherwise.
    static Mode defaultFor(std::size_t nodes, bool hasRolesOrModules);
    // The deepest module level of the current graph (the depth box's maximum).
    void setMaxDepth(int depth);

public slots:
    void setMode(Mode mode);
    void setDepth(int depth);

signals:
    void modeChanged(TimelineModeBar::Mode mode, int depth);

private:
    QComboBox* mode_ = nullptr;
    QSpinBox* depth_ = nullptr;
    void emitChange();
};
