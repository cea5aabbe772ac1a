// Everything about one node: op, target, inputs and users (links), output tensors with dtype,
// shape, stride and storage, the storages it allocates and frees, and its source stack trace.
#pragma once
#include "loading/scene.h"

#include <QTextBrowser>

#include <functional>
#include <memory>

class NodeInspector : public QTextBrowser {
    Q_OBJECT
public:
    explicit NodeInspector(QWidget* parent = nullptr);
    void setScene(std::shared_ptr<const Scene> scene);
    void showNode(NodeRef ref);
    NodeRef node() const { return node_; }
    // Where a node runs now (the graph view's step, which follows an edited schedule). Unset, or
    // equal to the original step, the inspector shows the original step alone.
    void setStepOf(std::function<std::int64_t(NodeRef)> stepOf) { stepOf_ = std::move(stepOf); }

signals:
    void nodeActivated(NodeRef ref);  // a link to another node was clicked

protected:
    void changeEvent(QEvent* event) override;

private:
    QString html(NodeRef ref) const;
    std::shared_ptr<const Scene> scene_;
    NodeRef node_;
    std::function<std::int64_t(NodeRef)> stepOf_;
};
