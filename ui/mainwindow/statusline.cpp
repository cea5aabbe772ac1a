#include "mainwindow/statusline.h"

#include "loading/sceneloader.h"
#include "util/text.h"
#include "util/units.h"

#include <QFileInfo>
#include <QLabel>
#include <QProgressBar>
#include <QStatusBar>
#include <QStringBuilder>
#include <QToolButton>

StatusLine::StatusLine(QStatusBar* bar, SceneLoader* loader) : QObject(bar) {
    // The file label never widens the window: elided text in, no minimum width of its own.
    file_ = new QLabel;
    file_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    bar->addPermanentWidget(file_, 1);
    progress_ = new QProgressBar;
    progress_->setRange(0, 1000);
    progress_->setMaximumWidth(220);
    progress_->setVisible(false);
    bar->addPermanentWidget(progress_);
    cancel_ = new QToolButton;
    cancel_->setText(tr("Cancel"));
    cancel_->setVisible(false);
    connect(cancel_, &QToolButton::clicked, loader, &SceneLoader::cancel);
    bar->addPermanentWidget(cancel_);

    connect(loader, &SceneLoader::progress, this, [this](double fraction, const QString& stage) {
        progress_->setValue(static_cast<int>(fraction * 1000));
        progress_->setFormat(stage % QStringLiteral(" %p%"));
    });
    connect(loader, &SceneLoader::busyChanged, this, [this](bool busy) {
        progress_->setVisible(busy);
        cancel_->setVisible(busy);
        if (busy) progress_->setValue(0);
    });
}

void StatusLine::showScene(const Scene* scene) {
    if (!scene) {
        file_->clear();
        return;
    }
    file_->setText(tr("%1 · %2 · %L3 nodes · peak %4")
                       .arg(elided(QFileInfo(scene->path).fileName(), 60), elided(scene->title(), 60))
                       .arg(scene->nodeCount())
                       .arg(formatBytes(scene->peak)));
    file_->setToolTip(elided(scene->path, 1000));
}
