// The Schedule dock's content: the schedule editor when one graph is shown, else a page that
// says why there is nothing to reorder (a joined forward/backward pair is two graphs on one time
// axis; the whole step is every graph run) with buttons that switch to the forward or the
// backward, or in the whole step to the graph of the run under the cursor. It also keeps the editor's
// "modified" state honest: the undo stack is marked clean whenever the order equals the last
// saved, opened or original one (so Reset Schedule leaves nothing unsaved).
#pragma once
#include <fxmem/ids.h>

#include <QStackedWidget>

#include <vector>

class QLabel;
class QPushButton;
class ScheduleEditor;
class ViewState;

class SchedulePanel : public QStackedWidget {
    Q_OBJECT
public:
    SchedulePanel(ViewState* state, ScheduleEditor* editor, QWidget* parent = nullptr);
    ScheduleEditor* editor() const { return editor_; }
    QLabel* messageLabel() const { return message_; }
    QPushButton* forwardButton() const { return forward_; }
    QPushButton* backwardButton() const { return backward_; }

signals:
    // The user asked to show graph `graph` of the file (an index into GraphFile::graphs).
    void graphRequested(int graph);

private:
    void onScene();
    void showWholeStep(); // the message and button for the run under the cursor
    ViewState* state_;
    ScheduleEditor* editor_;
    QWidget* messagePage_ = nullptr;
    QLabel* message_ = nullptr;
    QPushButton* forward_ = nullptr;
    QPushButton* backward_ = nullptr;
    int forwardGraph_ = -1, backwardGraph_ = -1;
};
