// The schedule dock's summary strip: the original and the edited peak in fixed-width digits, the
// change (green when the edit lowers the peak, red when it raises it), and Undo, Redo and Reset as
// icons whose tooltips name the command, so the strip fits a narrow dock.
#pragma once
#include <QFrame>

#include <vector>

class EditedSchedule;
class QLabel;
class QToolButton;

class PeakStrip : public QFrame {
    Q_OBJECT
public:
    explicit PeakStrip(EditedSchedule* edited, QWidget* parent = nullptr);
    // The figures of the schedule now ("—" without a graph).
    void refresh();

signals:
    void resetRequested();

protected:
    void changeEvent(QEvent* event) override;

private:
    EditedSchedule* edited_;
    QLabel* original_ = nullptr;
    QLabel* editedPeak_ = nullptr;
    QLabel* change_ = nullptr;
    QToolButton* reset_ = nullptr;
    std::vector<QLabel*> captions_;
    void applyPalette();
};
