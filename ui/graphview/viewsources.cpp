#include "graphview/viewsources.h"

PrepareInput prepareInputOf(const ViewSources& v) {
    PrepareInput in;
    in.view = v.view;
    in.selected = v.selected;
    in.hovered = v.hovered;
    in.font = v.font;
    if (!v.scene) return in;
    for (std::size_t s = 0; s < v.scene->segments.size(); ++s) {
        const Segment& seg = v.scene->segments[s];
        const int si = static_cast<int>(s);
        const std::vector<CollectivePair>& collectives = v.categories->collectives[s];
        in.segments.push_back({&seg.analysis->graph(), &v.layouts->of(si), seg.offset, &v.marks->live(s),
                               &v.marks->matches(s), v.modules->of(si), v.modules->highlight(s),
                               collectives.empty() ? nullptr : &collectives});
        in.segments.back().recomputed = &v.marks->recomputed(s);
    }
    in.bandRows = v.modules->bandRows();
    in.bandTop = GraphModules::bandTop(v.scene->joined());
    in.stripeDepth = v.modules->stripeDepth();
    return in;
}

ItemsCache::Key itemsKeyOf(const ViewSources& v) {
    ItemsCache::Key k;
    k.view = v.view;
    k.font = v.font;
    k.scene = v.scene;
    k.layouts = v.layouts->all();
    k.highlight = v.modules->highlights();
    k.bandRows = v.modules->bandRows();
    k.stripeDepth = v.modules->stripeDepth();
    k.matches = v.marks->otherGeneration();
    return k;
}
