#include "graphview/scrollbars.h"

#include <QWidget>

#include <algorithm>
#include <cmath>

GraphScrollBars::GraphScrollBars(QWidget* view)
    : view_(view), h_(new QScrollBar(Qt::Horizontal, view)), v_(new QScrollBar(Qt::Vertical, view)) {
    h_->hide();
    v_->hide();
    QObject::connect(h_, &QScrollBar::valueChanged, view, [this](int value) {
        if (!syncing_ && onTimeScrolled) onTimeScrolled(value);
    });
    QObject::connect(v_, &QScrollBar::valueChanged, view, [this](int value) {
        if (!syncing_ && onLanesScrolled) onLanesScrolled(value);
    });
}

void GraphScrollBars::setShown(bool on) {
    h_->setHidden(!on);
    v_->setHidden(!on);
}

QRegion GraphScrollBars::uncovered() const {
    QRegion r(view_->rect());
    if (!h_->isHidden()) r -= h_->geometry();
    if (!v_->isHidden()) r -= v_->geometry();
    return r;
}

void GraphScrollBars::place() {
    const int bw = v_->sizeHint().width(), bh = h_->sizeHint().height();
    const int vw = !v_->isHidden() ? bw : 0;
    h_->setGeometry(0, view_->height() - bh, view_->width() - vw, bh);
    v_->setGeometry(view_->width() - bw, 0, bw, view_->height() - (!h_->isHidden() ? bh : 0));
}

void GraphScrollBars::sync(const Range& r) {
    syncing_ = true;
    const double steps = static_cast<double>(std::max<std::size_t>(r.profileSteps, 2));
    const int page = std::max(1, static_cast<int>(std::lround(r.x1 - r.x0)));
    h_->setRange(0, std::max(0, static_cast<int>(std::lround(steps)) - page));
    h_->setPageStep(page);
    h_->setSingleStep(std::max(1, page / 10));
    h_->setValue(static_cast<int>(std::lround(r.x0 + 0.5)));
    const int lanePage = std::max(1, static_cast<int>(r.visibleLanes));
    v_->setRange(0, std::max(0, static_cast<int>(std::ceil(r.lanes - r.visibleLanes + 0.5))));
    v_->setPageStep(lanePage);
    v_->setSingleStep(std::max(1, lanePage / 10));
    v_->setValue(static_cast<int>(std::lround(r.top)));
    syncing_ = false;
}
