#include "graphview/itemscache.h"

bool ItemsCache::Key::operator==(const Key& o) const {
    const GraphViewport& a = view;
    const GraphViewport& b = o.view;
    return a.x0 == b.x0 && a.x1 == b.x1 && a.left == b.left && a.right == b.right && a.top == b.top &&
           a.laneHeight == b.laneHeight && a.topPad == b.topPad && a.width == b.width && a.height == b.height &&
           font == o.font && scene == o.scene && layouts == o.layouts && highlight == o.highlight &&
           bandRows == o.bandRows && stripeDepth == o.stripeDepth && matches == o.matches;
}

const VisibleItems& ItemsCache::get(const PrepareInput& in, Key key, const Marks& marks, bool reusable) {
    if (reusable && valid_ && key == key_) {
        if (!(marks == marks_) && !refreshMarks(items_, in)) {
            items_ = prepareVisibleItems(in);
            ++prepared_;
        }
    } else {
        items_ = prepareVisibleItems(in);
        ++prepared_;
    }
    valid_ = reusable;
    key_ = std::move(key);
    marks_ = marks;
    return items_;
}
