#include "util/afterpaint.h"

#include <QCoreApplication>
#include <QEvent>
#include <QPointer>

#include <memory>

namespace {

const QEvent::Type kAfterPaintEvent = static_cast<QEvent::Type>(QEvent::registerEventType());

struct AfterPaintEvent : QEvent {
    AfterPaintEvent(QObject* c, std::function<void()> work)
        : QEvent(kAfterPaintEvent), context(c), f(std::move(work)) {}
    QPointer<QObject> context;
    std::function<void()> f;
};

// Receives the events: one per application, on the GUI thread.
class Runner : public QObject {
public:
    using QObject::QObject;
    bool event(QEvent* e) override {
        if (e->type() != kAfterPaintEvent) return QObject::event(e);
        auto* a = static_cast<AfterPaintEvent*>(e);
        if (a->context) a->f();
        return true;
    }
};

int priorityOf(AfterPaint order) {
    return order == AfterPaint::Redraw ? Qt::LowEventPriority - 1 : Qt::LowEventPriority - 2;
}

} // namespace

void postAfterPaint(QObject* context, AfterPaint order, std::function<void()> f) {
    static QPointer<Runner> runner;
    if (!runner) runner = new Runner(QCoreApplication::instance()); // deleted with the application
    QCoreApplication::postEvent(runner, new AfterPaintEvent(context, std::move(f)), priorityOf(order));
}

std::function<void()> coalescedAfterPaint(QObject* context, AfterPaint order, std::function<void()> f) {
    auto pending = std::make_shared<bool>(false);
    return [context, order, pending, f = std::move(f)] {
        if (*pending) return;
        *pending = true;
        postAfterPaint(context, order, [pending, f] {
            *pending = false;
            f();
        });
    };
}
