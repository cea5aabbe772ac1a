// The main window's toolbar: Open, which graph (or joined pair) of the file, which devices count,
// how the graph view colours its nodes, Reset Zoom and Export Plot. Combos size to a few
// characters, not to the longest name. It asks; the window loads and the view colours.
#pragma once
#include "analysis/graphanalysis.h"
#include "graphview/colormode.h"
#include "loading/scene.h"

#include <QToolBar>

class QComboBox;
class MainActions;

class MainToolbar : public QToolBar {
    Q_OBJECT
public:
    MainToolbar(MainActions* actions, QWidget* parent = nullptr);
    QComboBox* graphCombo() const { return graph_; }
    // The graphs and pairs of the shown scene's file, the shown one current; its device filter.
    void showScene(const Scene* scene);
    DeviceFilter deviceFilter() const;
    void setDeviceFilter(DeviceFilter filter); // no signal
    NodeColorMode colorMode() const;

signals:
    // A graph (pair < 0) or a joined pair (graph < 0) was picked.
    void graphChosen(int graph, int pair);
    void deviceFilterChosen(DeviceFilter filter);
    void colorModeChosen(NodeColorMode mode);

private:
    QComboBox* graph_ = nullptr;
    QComboBox* device_ = nullptr;
    QComboBox* colour_ = nullptr;
};
