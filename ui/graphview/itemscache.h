// The graph view's prepared items, kept between paints. A cursor step changes only the live
// marks (a key step also the selection): the items are kept while everything else they depend
// on is unchanged (the key), and only those marks are brought up to date (refreshMarks).
#pragma once
#include "graphview/viewport.h"
#include "graphview/visibleitems.h"

#include <QFont>

#include <cstdint>
#include <vector>

class ItemsCache {
public:
    // Everything the items depend on besides the marks.
    struct Key {
        GraphViewport view;
        QFont font;
        const Scene* scene = nullptr;
        std::vector<const fxmem::GraphLayout*> layouts;
        std::vector<std::uint32_t> highlight;
        std::uint32_t bandRows = 0, stripeDepth = 0;
        std::uint64_t matches = 0; // generation of the search matches and recomputed marks
        bool operator==(const Key& o) const;
    };
    // The marks that follow the cursor.
    struct Marks {
        std::uint64_t live = 0; // generation of the live marks
        NodeRef selected, hovered;
        bool operator==(const Marks& o) const = default;
    };

    // The items for `in`: kept, refreshed or prepared again. `reusable`: false when collapsed
    // modules changed without a trace in the key (and summarise live marks).
    const VisibleItems& get(const PrepareInput& in, Key key, const Marks& marks, bool reusable);
    void invalidate() { valid_ = false; }
    // How often items were prepared from scratch.
    std::size_t preparedCount() const { return prepared_; }

private:
    VisibleItems items_;
    Key key_;
    Marks marks_;
    bool valid_ = false;
    std::size_t prepared_ = 0;
};
