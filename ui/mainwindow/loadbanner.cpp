#include "mainwindow/loadbanner.h"

#include "util/colors.h"

LoadBanner::LoadBanner(QWidget* parent) : QLabel(parent) {
    setWordWrap(true);
    setMargin(8);
    setVisible(false);
    setTextFormat(Qt::RichText);
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    connect(this, &QLabel::linkActivated, this, &LoadBanner::countAllDevicesRequested);
}

void LoadBanner::showScene(std::shared_ptr<const Scene> scene) {
    scene_ = std::move(scene);
    refill();
}

void LoadBanner::refill() {
    bool counted = false;
    if (scene_)
        for (const Segment& s : scene_->segments) counted = counted || s.analysis->has_counted_storage();
    const bool shown = scene_ && !scene_->empty() && !counted;
    setVisible(shown);
    if (!shown) return;
    // The window's colours: this label's own palette is what its style sheet made of them.
    const QPalette pal = window()->palette();
    const QColor bg = colors::mix(pal.color(QPalette::Window), colors::live(pal), 0.3);
    setStyleSheet(QStringLiteral("background:%1; color:%2").arg(bg.name(), pal.color(QPalette::WindowText).name()));
    setText(scene_->request.filter == DeviceFilter::NonCpu
                ? tr("<b>This graph holds only CPU storages.</b> PyTorch's estimator counts non-CPU storages "
                     "only, so every number here is 0. <a href=\"all\">Count all devices</a>")
                : tr("<b>This graph allocates no storage.</b>"));
}
