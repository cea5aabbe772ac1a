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
        const int i = static_cast<int>(s);
        const std::vector<fxmem::CollectivePair>& collectives = v.categories->collectives[s];
        SegmentInput& si = in.segments.emplace_back();
        si.graph = &seg.analysis->graph();
        si.layout = &v.layouts->of(i);
        si.offset = seg.offset;
        si.live = &v.marks->live(s);
        si.match = &v.marks->matches(s);
        si.groups = v.modules->of(i);
        si.highlight = v.modules->highlight(s);
        si.collectives = collectives.empty() ? nullptr : &collectives;
        si.recomputed = &v.marks->recomputed(s);
        si.name = seg.name;
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
