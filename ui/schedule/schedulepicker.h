// The schedule dock's source row: which order to edit (the graph's own, a schedule stored in the
// file, or your edit; the editor fills the combo) and the Compare, Optimize and Suggest buttons.
// Plain widgets the editor connects to; it owns the sources and what the buttons do.
#pragma once
#include <QWidget>

class QComboBox;
class QToolButton;

class SchedulePicker : public QWidget {
    Q_OBJECT
public:
    explicit SchedulePicker(QWidget* parent = nullptr);
    QComboBox* combo = nullptr;
    QToolButton* compare = nullptr; // checkable: the Compare panel is open
    QToolButton* optimize = nullptr;
    QToolButton* suggest = nullptr; // checkable: the suggestions are shown
};
