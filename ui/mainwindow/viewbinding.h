// Binds the window's views to the shared ViewState and to each other, so MainWindow only builds
// and places them: the graph view and the timeline share the time axis and the hover; the graph
// view marks the live table's storages, the find bar's matches and the recomputed nodes (its
// drops go to the edited schedule itself); the inspector notes recomputed nodes.
#pragma once
#include <QObject>
#include <QString>

class ViewState;
struct WindowParts;

class ViewBinding : public QObject {
    Q_OBJECT
public:
    // Every pointer of `parts` but the loader, actions, toolbar and docks is used; the graph view
    // and the inspector already follow `state` (their setState ran when they were made).
    ViewBinding(const WindowParts& parts, ViewState* state, QObject* parent);

signals:
    // For the status bar, shown for `ms` milliseconds: a refused drop, a recompute edit.
    void message(const QString& text, int ms);
};
