// The graph view's two scroll bars, children of the view: horizontal in steps over the whole
// profile, vertical in lanes. They follow the navigation (sync) and report the user's moves
// through the callbacks, but not the moves sync itself causes.
#pragma once
#include <QRegion>
#include <QScrollBar>

#include <cstddef>
#include <cstdint>
#include <functional>

class QWidget;

class GraphScrollBars {
public:
    explicit GraphScrollBars(QWidget* view);

    QScrollBar* horizontal() const { return h_; }
    QScrollBar* vertical() const { return v_; }
    bool shown() const { return !h_->isHidden(); }
    // Pixels the bars take from the view's width and height now.
    int rightWidth() const { return !v_->isHidden() ? v_->width() : 0; }
    int bottomHeight() const { return !h_->isHidden() ? h_->height() : 0; }
    void setShown(bool on);
    // The part of the view the bars leave uncovered: what a change of the drawing repaints (the
    // view's update() would repaint the bars too, which is a fifth of a frame with Fusion's).
    QRegion uncovered() const;
    // Lays the bars along the right and bottom edges of the view.
    void place();
    struct Range {
        std::size_t profileSteps = 0;
        double x0 = 0, x1 = 1; // visible global steps
        double top = 0, visibleLanes = 1;
        std::int32_t lanes = 1;
    };
    void sync(const Range& r);

    std::function<void(int value)> onTimeScrolled;  // the first visible step
    std::function<void(int value)> onLanesScrolled; // the first visible lane

private:
    QWidget* view_;
    QScrollBar* h_;
    QScrollBar* v_;
    bool syncing_ = false;
};
