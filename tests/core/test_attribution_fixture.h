// A forward/backward pair with modules, parameter labels and hand-computed profiles, for the
// attribution and breakdown tests.
//   storages (bytes): W0 1000, W1 2000 (parameters "layers.0.fc.weight", "layers.1.fc.weight"),
//                     X 100, A0 300, A1 400, L 4, T 4, G1 2000, D 50, G0 1000
//   forward "fwd":  primals_1 -> W0, primals_2 -> W1, x -> X,
//                   mm0 = mm(x, primals_1) -> A0     module layers.0.fc (Linear)
//                   mm1 = mm(mm0, primals_2) -> A1   module layers.1.fc (Linear)
//                   loss = sum(mm1) -> L             module "" (Net)
//                   output(loss, mm0)
//   backward "bwd": primals_2 -> W1, mm0_saved -> A0, tangents_1 -> T,
//                   g1 = mm(tangents_1, mm0_saved) -> G1   module layers.1.fc
//                   d = mm(tangents_1, primals_2) -> D     module layers.1.fc
//                   g0 = mm(d) -> G0                       module layers.0.fc
//                   output(g1, g0)
// Forward profile:  [3100, 3400, 3300, 3700, 3700, 3704, 3304] (x freed after mm0, A1 after loss)
// Backward profile: [2304, 4304, 4004, 4054, 4054, 5054, 5004] (A0 freed after g1, D after g0;
//                   W1 and T are never released)
#pragma once
#include "fxmem/model.h"

#include <initializer_list>
#include <string_view>

namespace fxmem::testing {

// GraphBuilder::add with a module (`module` null: none).
inline NodeId add_in_module(GraphBuilder& b, const GraphFile& f, std::string name, OpKind op, std::string_view target,
                            std::initializer_list<std::string_view> inputs, std::initializer_list<StorageId> outputs,
                            const char* module = nullptr, std::string_view type = {}) {
    const NodeId id = b.begin_node(std::move(name), op, target);
    for (std::string_view in : inputs) b.add_input(in);
    if (module) b.set_module(module, type);
    auto tensor = [&](StorageId s) {
        const std::int64_t shape[1] = {f.nbytes(s) / 4}, stride[1] = {1};
        b.val_tensor(s, "float32", shape, stride, 0);
    };
    if (outputs.size() == 1) {
        tensor(*outputs.begin());
    } else if (outputs.size() > 1) {
        b.val_begin_list();
        for (StorageId s : outputs) tensor(s);
        b.val_end_list();
    }
    b.end_node();
    return id;
}

struct ModulePair {
    GraphFile file;
    StorageId W0, W1, X, A0, A1, L, T, G1, D, G0;
    ModulePair() {
        file.source = "modules.json";
        W0 = file.add_storage(0, "cuda:0", 1000);
        W1 = file.add_storage(1, "cuda:0", 2000);
        X = file.add_storage(2, "cuda:0", 100);
        A0 = file.add_storage(3, "cuda:0", 300);
        A1 = file.add_storage(4, "cuda:0", 400);
        L = file.add_storage(5, "cuda:0", 4);
        T = file.add_storage(6, "cuda:0", 4);
        G1 = file.add_storage(7, "cuda:0", 2000);
        D = file.add_storage(8, "cuda:0", 50);
        G0 = file.add_storage(9, "cuda:0", 1000);
        {
            GraphBuilder b(file, "fwd", GraphKind::Forward);
            add_in_module(b, file, "primals_1", OpKind::Placeholder, "primals_1", {}, {W0});
            add_in_module(b, file, "primals_2", OpKind::Placeholder, "primals_2", {}, {W1});
            add_in_module(b, file, "x", OpKind::Placeholder, "x", {}, {X});
            add_in_module(b, file, "mm0", OpKind::CallFunction, "aten.mm.default", {"x", "primals_1"}, {A0},
                          "layers.0.fc", "Linear");
            add_in_module(b, file, "mm1", OpKind::CallFunction, "aten.mm.default", {"mm0", "primals_2"}, {A1},
                          "layers.1.fc", "Linear");
            add_in_module(b, file, "loss", OpKind::CallFunction, "aten.sum.default", {"mm1"}, {L}, "", "Net");
            add_in_module(b, file, "output", OpKind::Output, "output", {"loss", "mm0"}, {});
            b.finish();
        }
        {
            GraphBuilder b(file, "bwd", GraphKind::Backward);
            add_in_module(b, file, "primals_2", OpKind::Placeholder, "primals_2", {}, {W1});
            add_in_module(b, file, "mm0_saved", OpKind::Placeholder, "mm0_saved", {}, {A0});
            add_in_module(b, file, "tangents_1", OpKind::Placeholder, "tangents_1", {}, {T});
            add_in_module(b, file, "g1", OpKind::CallFunction, "aten.mm.default", {"tangents_1", "mm0_saved"}, {G1},
                          "layers.1.fc", "Linear");
            add_in_module(b, file, "d", OpKind::CallFunction, "aten.mm.default", {"tangents_1", "primals_2"}, {D},
                          "layers.1.fc", "Linear");
            add_in_module(b, file, "g0", OpKind::CallFunction, "aten.mm.default", {"d"}, {G0}, "layers.0.fc", "Linear");
            add_in_module(b, file, "output", OpKind::Output, "output", {"g1", "g0"}, {});
            b.finish();
        }
        file.add_pair("fwd", "bwd");
    }
    // The labels the exporter writes for the parameters (roles given by the file too).
    void label_parameters() {
        file.set_role(W0, StorageRole::Parameter, "layers.0.fc.weight");
        file.set_role(W1, StorageRole::Parameter, "layers.1.fc.weight");
    }
};

} // namespace fxmem::testing
