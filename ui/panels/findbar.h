// Find modules by qualified name and nodes by name or target (case-insensitive substring) across
// the scene's graphs. Enter steps to the next match (the modules first), Shift+Enter to the
// previous one, Esc closes. Wires itself to the ViewState: a node match becomes the selected node
// (centred) and the cursor moves to its step; a module match becomes the selected module (the
// graph view outlines it, the Dataflow view opens to it, the breakdown selects it).
#pragma once
#include "loading/scene.h"

#include <QWidget>

#include <vector>

class QLabel;
class QLineEdit;
class QTimer;
class ViewState;

class FindBar : public QWidget {
    Q_OBJECT
public:
    explicit FindBar(ViewState* state, QWidget* parent = nullptr);
    QLineEdit* edit() const { return edit_; }
    QLabel* countLabel() const { return count_; }
    const std::vector<NodeRef>& matches() const { return matches_; }
    // Qualified module names ("blocks.1.attn"), each once however many graph runs have it.
    const std::vector<QString>& moduleMatches() const { return moduleMatches_; }
    // Shows the bar and focuses the text.
    void activate();

signals:
    void matchesChanged(const std::vector<NodeRef>& matches);
    void dismissed(); // closed by Esc or its button (matches cleared)

public slots:
    void dismiss();
    void runSearch();
    void step(int delta); // +1 next, -1 previous

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    ViewState* state_;
    QLineEdit* edit_ = nullptr;
    QLabel* count_ = nullptr;
    QTimer* timer_ = nullptr;
    std::vector<NodeRef> matches_;
    std::vector<QString> moduleMatches_;
    int index_ = -1; // into the modules, then the nodes
};

// Whether `hay` contains `lowerNeedle` (already lower-case ASCII), ignoring ASCII case.
bool containsIgnoringCase(std::string_view hay, std::string_view lowerNeedle);
