// More hand-built graphs for the main-window and panel tests (on top of ui_fixtures.h).
#pragma once
#include "ui_fixtures.h"

#include <string>

namespace shellfixtures {

using namespace fxmem;

// Placeholders primals_10 (cuda 10), primals_4 (cuda 4), primals_2 (cuda 2) feed one add (cuda 1).
// All are live at the start: [16, 17, 17, 17, 17]... (primals are never freed; the add is the output).
inline GraphFile numbered() {
    GraphFile f;
    f.source = "numbered.json";
    const StorageId a = f.add_storage(0, "cuda:0", 10), b = f.add_storage(1, "cuda:0", 4),
                    c = f.add_storage(2, "cuda:0", 2), d = f.add_storage(3, "cuda:0", 1);
    GraphBuilder g(f, "numbered", GraphKind::Inference);
    g.add("primals_10", OpKind::Placeholder, "primals_10", {}, {a});
    g.add("primals_4", OpKind::Placeholder, "primals_4", {}, {b});
    g.add("primals_2", OpKind::Placeholder, "primals_2", {}, {c});
    g.add("add", OpKind::CallFunction, "aten.add.Tensor", {"primals_10", "primals_4", "primals_2"}, {d});
    g.add("output", OpKind::Output, "output", {"add"}, {});
    g.finish();
    return f;
}

// The chain of ui_fixtures.h with node b named by `bytes` characters (a hostile file).
inline GraphFile giantName(std::size_t bytes) {
    GraphFile f;
    f.source = "giant.json";
    const std::string big(bytes, 'n');
    const StorageId s0 = f.add_storage(0, "cuda:0", 100), s1 = f.add_storage(1, "cuda:0", 10),
                    s2 = f.add_storage(2, "cuda:0", 20);
    GraphBuilder g(f, big, GraphKind::Inference);
    g.add("primals_1", OpKind::Placeholder, "primals_1", {}, {s0});
    g.add("a", OpKind::CallFunction, "aten.relu.default", {"primals_1"}, {s1});
    g.add(big, OpKind::CallFunction, big, {"a"}, {s2});
    g.add("output", OpKind::Output, "output", {big}, {});
    g.finish();
    return f;
}

// fixtures::fakeLoader plus the graphs above.
inline FileLoader loader() {
    return [](const std::string& path, const LoadControl& control) -> GraphFile {
        if (path.ends_with("numbered.json")) return numbered();
        if (path.ends_with("giant.json")) return giantName(20u << 20);
        return fixtures::fakeLoader()(path, control);
    };
}

} // namespace shellfixtures
