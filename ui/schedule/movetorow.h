// The schedule dock's "Move selected to" row: what the typed number or name means (a position in
// this order, a profile step, or "just after" a named node, completed from the graph's names),
// the field and the Move button. It only asks; the editor checks and moves.
#pragma once
#include <fxmem/model.h>

#include <QWidget>

class QComboBox;
class QLineEdit;

class MoveToRow : public QWidget {
    Q_OBJECT
public:
    enum class Kind { Position, ProfileStep, AfterNode };
    explicit MoveToRow(QWidget* parent = nullptr);
    Kind kind() const;
    // The graph whose node names complete the field in AfterNode mode (nullptr: none).
    void setGraph(const fxmem::Graph* graph);

signals:
    // Move (or Enter in the field): the trimmed text, read as `kind` says.
    void moveRequested(Kind kind, const QString& target);

private:
    QComboBox* kind_ = nullptr;
    QLineEdit* target_ = nullptr;
    const fxmem::Graph* graph_ = nullptr;
    void updateCompleter();
};
