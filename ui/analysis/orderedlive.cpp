#include "analysis/orderedlive.h"

#include <fxmem/error.h>

#include <QPointer>

OrderedLive::OrderedLive(std::shared_ptr<const GraphAnalysis> a, std::span<const fxmem::NodeId> order)
    : analysis(std::move(a)),
      index(analysis->file(), analysis->graph(), analysis->alias(), analysis->releasable(), analysis->counted(), order) {}

OrderedLiveBuilder::OrderedLiveBuilder(QObject* parent) : QObject(parent) {
    // One worker: a newer request waits for the running one, whose result is then dropped.
    pool_.setMaxThreadCount(1);
}

OrderedLiveBuilder::~OrderedLiveBuilder() {
    ++*latest_;
    pool_.waitForDone();
}

void OrderedLiveBuilder::request(std::shared_ptr<const GraphAnalysis> analysis, std::vector<fxmem::NodeId> order) {
    const quint64 gen = ++*latest_;
    pending_ = true;
    QPointer<OrderedLiveBuilder> self(this);
    pool_.start([self, gen, latest = latest_, analysis = std::move(analysis), order = std::move(order)]() mutable {
        if (latest->load() != gen) return;  // a newer request is queued behind this one
        std::shared_ptr<const OrderedLive> live;
        QString error;
        try {
            live = std::make_shared<const OrderedLive>(std::move(analysis), order);
        } catch (const fxmem::Error& e) {
            error = QString::fromStdString(e.what());
        }
        // Delivered on the GUI thread, and only when no newer request came in meanwhile.
        QMetaObject::invokeMethod(
            self,
            [self, gen, live = std::move(live), error] {
                if (!self || self->latest_->load() != gen) return;
                self->pending_ = false;
                if (live)
                    emit self->ready(live);
                else
                    emit self->failed(error);
            },
            Qt::QueuedConnection);
    });
}
