#include "mainwindow/sidepanelwidth.h"

#include "mainwindow/appsettings.h"

#include <QDockWidget>
#include <QEvent>
#include <QMainWindow>

#include <algorithm>
#include <cmath>

SidePanelWidth::SidePanelWidth(QMainWindow* window, QDockWidget* dock) : QObject(window), window_(window), dock_(dock) {
    const double saved = AppSettings::sidePanelFraction();
    fraction_ = saved > 0.05 && saved < 0.95 ? saved : kDefaultFraction;
    window_->installEventFilter(this);
    dock_->installEventFilter(this);
}

bool SidePanelWidth::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() != QEvent::Resize) return false;
    if (watched == window_) {
        // After the window's own layout has settled.
        if (!pending_) {
            pending_ = true;
            QMetaObject::invokeMethod(this, &SidePanelWidth::apply, Qt::QueuedConnection);
        }
    } else if (watched == dock_ && !pending_ && appliedWidth_ == window_->width() && !dock_->isFloating() &&
               dock_->isVisible()) {
        // The window kept its width and the dock is not held at its minimum: the user dragged
        // the dock's edge (a few pixels of frame are not a choice).
        const int target = static_cast<int>(std::lround(fraction_ * window_->width()));
        if (std::abs(dock_->width() - target) > 8 && dock_->width() > dock_->minimumSizeHint().width() + 2) {
            fraction_ = std::clamp(static_cast<double>(dock_->width()) / window_->width(), 0.1, 0.9);
            AppSettings::setSidePanelFraction(fraction_);
        }
    }
    return false;
}

void SidePanelWidth::apply() {
    pending_ = false;
    if (dock_->isFloating() || !dock_->isVisible() || window_->width() <= 0) return;
    window_->resizeDocks({dock_}, {static_cast<int>(std::lround(fraction_ * window_->width()))}, Qt::Horizontal);
    appliedWidth_ = window_->width();
}
