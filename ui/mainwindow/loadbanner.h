// The banner over the summary when the shown graph counts no storage: only CPU storages under the
// default device filter (with a link to count all devices), or none at all. Hidden otherwise.
#pragma once
#include "loading/scene.h"

#include <QLabel>

#include <memory>

class LoadBanner : public QLabel {
    Q_OBJECT
public:
    explicit LoadBanner(QWidget* parent = nullptr);
    // nullptr: hidden. Again on a theme change: the colours are the window's.
    void showScene(std::shared_ptr<const Scene> scene);

signals:
    void countAllDevicesRequested();

private:
    std::shared_ptr<const Scene> scene_;
    void refill();
};
