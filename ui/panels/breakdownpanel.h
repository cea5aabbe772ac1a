// The breakdown at the cursor step: the bytes by storage role, and the module tree
// with each module's bytes and share of the step. Selecting a module selects it in the shared
// ViewState (the live table then shows its storages; the graph view may highlight its nodes);
// selecting the whole graph, or Clear, selects none. Wires itself to the ViewState and only
// computes while visible.
#pragma once
#include "analysis/liveatstep.h"

#include <fxmem/liveset.h>

#include <QWidget>

#include <memory>
#include <vector>

class QLabel;
class QTableView;
class QToolButton;
class QTreeView;
class QSortFilterProxyModel;
class BreakdownProxy;
class ModuleBreakdownModel;
class RoleBreakdownModel;
class ViewState;

class BreakdownPanel : public QWidget {
    Q_OBJECT
public:
    explicit BreakdownPanel(ViewState* state, QWidget* parent = nullptr);
    RoleBreakdownModel* roleModel() const { return roles_; }
    ModuleBreakdownModel* moduleModel() const { return modules_; }
    BreakdownProxy* moduleProxy() const { return moduleProxy_; }
    QTreeView* moduleView() const { return tree_; }
    QLabel* headerLabel() const { return header_; }

public slots:
    void refresh();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void selectInTree(const QString& module);
    ViewState* state_;
    QLabel* header_ = nullptr;
    RoleBreakdownModel* roles_ = nullptr;
    QSortFilterProxyModel* roleProxy_ = nullptr;
    QTableView* roleTable_ = nullptr;
    ModuleBreakdownModel* modules_ = nullptr;
    BreakdownProxy* moduleProxy_ = nullptr;
    QTreeView* tree_ = nullptr;
    QToolButton* clear_ = nullptr;
    bool stale_ = true;
    bool selecting_ = false;
    int segment_ = -1;                       // the segment whose module tree is shown
    std::shared_ptr<const LiveAtStep> live_; // ViewState's, for the step shown
    // The whole step: the modules of the run shown (segment_), made once per run and scene.
    std::shared_ptr<const fxmem::StepModules> stepModules_;
    std::weak_ptr<const Scene> stepModulesScene_;
    std::uint32_t stepModulesSegment_ = 0;
};
