// The schedule dock's source row: which order to edit (the graph's own, a schedule stored in the
// file, or "Your edit", the last order the user made, kept while another one is picked) and the
// Compare, Optimize and Suggest buttons. It owns the sources of the graph being edited and lists
// them in its combo and in the boxes added with addMirror (the Compare panel's A and B); picking
// one is one undoable command on the EditedSchedule. The buttons' actions are the editor's.
#pragma once
#include <fxmem/ids.h>

#include <QStringList>
#include <QWidget>

#include <vector>

class EditedSchedule;
class QComboBox;
class QToolButton;

class SchedulePicker : public QWidget {
    Q_OBJECT
public:
    explicit SchedulePicker(EditedSchedule* edited, QWidget* parent = nullptr);
    QComboBox* combo = nullptr;
    QToolButton* compare = nullptr; // checkable: the Compare panel is open
    QToolButton* optimize = nullptr;
    QToolButton* suggest = nullptr; // checkable: the suggestions are shown

    // Another box that lists the same sources, refilled with the combo.
    void addMirror(QComboBox* box);
    // The sources of the graph now (none without one); the boxes refilled, the combo synced.
    void rebuild();
    void clear();

    QStringList names() const;
    int count() const { return static_cast<int>(sources_.size()); }
    // The source whose order is the schedule now ("Your edit" when none is); -1 without a graph.
    int current() const;
    // A schedule of the file by name; -1 when the file has none of that name.
    int find(const QString& name) const;
    // Source i's order; "Your edit" is the last order the user made, or the order now before one.
    std::vector<fxmem::NodeId> orderAt(int i) const;
    QString nameAt(int i) const;
    // Makes source i the edited order (undoable). False when there is no such source or it has
    // no order yet (no edit made); `status` then is empty, else it says what is edited now.
    bool pick(int index, QString* status);
    // The combo on current(); "Your edit" enabled once there is one; the buttons enabled with a
    // graph (Optimize unless `optimizing`).
    void sync(bool optimizing);

private:
    struct Source {
        QString name;
        std::vector<fxmem::NodeId> order; // empty for "Your edit"
        bool isEdit = false;
        QString source; // where a stored schedule comes from (tooltip)
    };
    EditedSchedule* edited_;
    std::vector<Source> sources_;   // original, named ones, your edit (last)
    std::vector<QComboBox*> boxes_; // the combo and its mirrors
};
