// Everything about one node: op, target, inputs and users (links), output tensors with dtype,
// shape, stride and storage, the storages it allocates and frees, and its source stack trace.
#pragma once
#include "loading/scene.h"

#include <QTextBrowser>

#include <functional>
#include <memory>

class ViewState;

class NodeInspector : public QTextBrowser {
    Q_OBJECT
public:
    // With `state`, it follows the shared state: its scene, the selected node, and where the node
    // runs in the edited order (shown beside the original step when they differ); a link selects
    // its node. Without, it shows what it is given.
    explicit NodeInspector(ViewState* state = nullptr, QWidget* parent = nullptr);
    void setScene(std::shared_ptr<const Scene> scene);
    void showNode(NodeRef ref);
    NodeRef node() const { return node_; }
    // A line of rich text about a node from another view (e.g. "recomputed from …"); empty: none.
    using Note = std::function<QString(const Scene& scene, NodeRef ref)>;
    void setNote(Note note) { note_ = std::move(note); }

signals:
    void nodeActivated(NodeRef ref); // a link to another node was clicked

protected:
    void changeEvent(QEvent* event) override;

private:
    void bindState(ViewState* state);
    QString html(NodeRef ref) const;
    void setPage(QString page);
    std::shared_ptr<const Scene> scene_;
    NodeRef node_;
    ViewState* state_ = nullptr;
    Note note_;
    QString shownHtml_; // the page set last
};
