// The schedule dock's "Move selected to" row: what the typed number or name means (a position in
// this order, a profile step, or "just after" a named node, completed from the graph's names),
// the field and the Move button. It only asks; the editor checks and moves.
#pragma once
#include <fxmem/model.h>

#include <QWidget>

class EditedSchedule;
class QComboBox;
class QLineEdit;

class MoveToRow : public QWidget {
    Q_OBJECT
public:
    enum class Kind { Position, ProfileStep, AfterNode };
    explicit MoveToRow(QWidget* parent = nullptr);
    Kind kind() const;
    // What `text` asks for, read as `kind` says against `edited`'s order: the final position
    // (a position, or a profile step's position), or for AfterNode the node to follow; `error`
    // says why the text means nothing (not a number, no such node).
    struct Target {
        std::size_t position = 0;
        fxmem::NodeId after;
        QString error;
    };
    static Target read(Kind kind, const QString& text, const EditedSchedule& edited);
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
