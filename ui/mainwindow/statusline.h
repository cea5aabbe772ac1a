// The status bar's lasting part: the file shown (name, graph, node count, peak) and, while a file
// loads, the loader's progress with Cancel. Passing messages stay the window's.
#pragma once
#include "loading/scene.h"

#include <QObject>

class QLabel;
class QProgressBar;
class QStatusBar;
class QToolButton;
class SceneLoader;

class StatusLine : public QObject {
    Q_OBJECT
public:
    StatusLine(QStatusBar* bar, SceneLoader* loader);
    void showScene(const Scene* scene); // nullptr: none

private:
    QLabel* file_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QToolButton* cancel_ = nullptr;
};
