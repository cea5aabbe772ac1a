// The parts of the graph view's state that a paint reads, gathered in one place, and what
// prepareVisibleItems and the items cache are given from them. A plain view of the state; the
// GraphView owns it all.
#pragma once
#include "graphview/graphmodules.h"
#include "graphview/itemscache.h"
#include "graphview/nodemarks.h"
#include "graphview/scenecategories.h"
#include "graphview/scenelayouts.h"
#include "graphview/viewport.h"
#include "graphview/visibleitems.h"
#include "loading/scene.h"

#include <QFont>

struct ViewSources {
    const Scene* scene = nullptr;
    const SceneLayouts* layouts = nullptr;
    const NodeMarks* marks = nullptr;
    const GraphModules* modules = nullptr;
    const SceneCategories* categories = nullptr;
    GraphViewport view;
    QFont font;
    NodeRef selected, hovered;
};

PrepareInput prepareInputOf(const ViewSources& v);
// Everything the items depend on besides the marks that follow the cursor.
ItemsCache::Key itemsKeyOf(const ViewSources& v);
