// The live-set index of an edited schedule. After an edit the live table, the step names and the
// graph view's highlights describe the edited order; building its LiveSetIndex is O(N+E), so it
// runs on a worker thread (a JobTracker) and arrives as an immutable value
// (std::shared_ptr<const OrderedLive>). Each request supersedes the previous one, and only the
// latest result is delivered, on the GUI thread.
#pragma once
#include "analysis/graphanalysis.h"

#include <fxmem/liveset.h>

#include <QObject>

#include <memory>
#include <span>
#include <vector>

struct OrderedLive {
    OrderedLive(std::shared_ptr<const GraphAnalysis> a, std::span<const fxmem::NodeId> order);
    std::shared_ptr<const GraphAnalysis> analysis; // keeps the graph and alias info the index reads
    fxmem::LiveSetIndex index;                     // keeps its own copy of the order
};

class OrderedLiveBuilder : public QObject {
    Q_OBJECT
public:
    explicit OrderedLiveBuilder(QObject* parent = nullptr);
    ~OrderedLiveBuilder() override; // waits for the worker

    // Builds the index of `order` (a legal schedule of the analysis's graph) and emits ready().
    void request(std::shared_ptr<const GraphAnalysis> analysis, std::vector<fxmem::NodeId> order);
    // Stops whatever is pending: nothing is delivered until the next request.
    void cancel();
    bool pending() const;

signals:
    void ready(std::shared_ptr<const OrderedLive> live);
    void failed(const QString& message);

private:
    class JobTracker* jobs_ = nullptr;
};
