// The schedule dock's status line: what the last action did, or why a move was refused (in the
// palette's "worse" colour), whole in the tooltip and never widening the dock; after a refusal
// that only the node's single-use view inputs cause, a button offering to move them along.
#pragma once
#include <QWidget>

#include <functional>

class QLabel;
class QToolButton;

class ScheduleStatus : public QWidget {
    Q_OBJECT
public:
    explicit ScheduleStatus(QWidget* parent = nullptr);
    // Any offer belongs to the refusal that made it and goes with the next message.
    void say(const QString& text, bool refusal);
    // The button, labelled `text`, runs `act` when clicked; until the next say().
    void offer(const QString& text, std::function<void()> act);
    void clear();
    // What it says now (whole, as said).
    QString text() const;

private:
    QLabel* label_ = nullptr;
    QToolButton* offer_ = nullptr;
    std::function<void()> act_;
};
