// The file's "step" (reader: fast path and nlohmann; writer) and whole_step's carry rules on a
// two-region file whose numbers are computed by hand below.
#include "fxmem/attribution.h"
#include "fxmem/error.h"
#include "fxmem/io.h"
#include "fxmem/whole_step.h"
#include "io/load_paths.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>

using namespace fxmem;

namespace {

std::string t(int storage) {
    return R"({"storage": )" + std::to_string(storage) +
           R"(, "dtype": "float32", "shape": [1], "stride": [1], "offset": 0})";
}

std::string node(const std::string& name, const std::string& op, const std::string& inputs, const std::string& val) {
    return R"({"name": ")" + name + R"(", "op": ")" + op + R"(", "target": ")" + name + R"(", "inputs": [)" + inputs +
           R"(], "val": )" + val + "}";
}

// Region 0: f0 (lin.weight W0 100, input X 10) -> a (A 20, saved), b (B 30, passed on);
//           b0 (a_saved A, tangents_1 T0 30) -> gw (GW0 100, grad of lin.weight).
// Region 1: f1 (head.weight W1 50, input B1 30) -> c (C 40, saved), loss (L 4); saves W1 too;
//           b1 (primals_1 W1, c C, tangents_1 T1 4) -> gw1 (GW1 50, grad of head.weight),
//           gx (GX 30, grad of x: handed to b0, not carried).
// Optimizer state O1 200 and O2 100.
std::string file_text(const std::string& step) {
    std::string s = R"({"format": "fxmem", "version": 1, "storages": [
{"id": 0, "device": "cuda:0", "nbytes": 100, "role": "parameter", "label": "lin.weight"},
{"id": 1, "device": "cuda:0", "nbytes": 10, "role": "input", "label": "x"},
{"id": 2, "device": "cuda:0", "nbytes": 20, "role": "activation"},
{"id": 3, "device": "cuda:0", "nbytes": 30, "role": "output"},
{"id": 4, "device": "cuda:0", "nbytes": 30, "role": "tangent"},
{"id": 5, "device": "cuda:0", "nbytes": 100, "role": "gradient", "label": "grad of lin.weight"},
{"id": 6, "device": "cuda:0", "nbytes": 50, "role": "parameter", "label": "head.weight"},
{"id": 7, "device": "cuda:0", "nbytes": 30, "role": "input", "label": "x"},
{"id": 8, "device": "cuda:0", "nbytes": 40, "role": "activation"},
{"id": 9, "device": "cuda:0", "nbytes": 4, "role": "output"},
{"id": 10, "device": "cuda:0", "nbytes": 4, "role": "tangent"},
{"id": 11, "device": "cuda:0", "nbytes": 50, "role": "gradient", "label": "grad of head.weight"},
{"id": 12, "device": "cuda:0", "nbytes": 30, "role": "gradient", "label": "grad of x"},
{"id": 13, "device": "cuda:0", "nbytes": 200, "role": "optimizer_state", "label": "lin.weight exp_avg"},
{"id": 14, "device": "cuda:0", "nbytes": 100, "role": "optimizer_state", "label": "head.weight exp_avg"}],
"graphs": [
{"name": "f0", "kind": "forward", "nodes": [)";
    s += node("primals_1", "placeholder", "", t(0)) + ",\n" + node("primals_2", "placeholder", "", t(1)) + ",\n" +
         node("a", "call_function", R"("primals_1", "primals_2")", t(2)) + ",\n" +
         node("b", "call_function", R"("a")", t(3)) + ",\n" + node("output", "output", R"("b", "a")", "null") + "]},\n";
    s += R"({"name": "b0", "kind": "backward", "nodes": [)";
    s += node("a_saved", "placeholder", "", t(2)) + ",\n" + node("tangents_1", "placeholder", "", t(4)) + ",\n" +
         node("gw", "call_function", R"("a_saved", "tangents_1")", t(5)) + ",\n" +
         node("output", "output", R"("gw")", "null") + "]},\n";
    s += R"({"name": "f1", "kind": "forward", "nodes": [)";
    s += node("primals_1", "placeholder", "", t(6)) + ",\n" + node("primals_2", "placeholder", "", t(7)) + ",\n" +
         node("c", "call_function", R"("primals_1", "primals_2")", t(8)) + ",\n" +
         node("loss", "call_function", R"("c")", t(9)) + ",\n" +
         node("output", "output", R"("loss", "c", "primals_1")", "null") + "]},\n";
    s += R"({"name": "b1", "kind": "backward", "nodes": [)";
    s += node("primals_1", "placeholder", "", t(6)) + ",\n" + node("c", "placeholder", "", t(8)) + ",\n" +
         node("tangents_1", "placeholder", "", t(10)) + ",\n" +
         node("gw1", "call_function", R"("c", "tangents_1")", t(11)) + ",\n" +
         node("gx", "call_function", R"("primals_1", "tangents_1")", t(12)) + ",\n" +
         node("output", "output", R"("gw1", "gx")", "null") + "]}],\n";
    s += R"("pairs": [{"forward": "f0", "backward": "b0"}, {"forward": "f1", "backward": "b1"}])";
    if (!step.empty()) s += ",\n\"step\": " + step;
    s += "}\n";
    return s;
}

const std::string kStep =
    R"([{"graph": "f0", "call": 0}, {"graph": "f1", "call": 0}, {"graph": "b1", "call": 0}, {"graph": "b0", "call": 0}])";

} // namespace

TEST(WholeStep, ReaderFastAndNlohmannAgreeAndTheWriterKeepsIt) {
    const std::string text =
        file_text(R"([{"graph": "f0", "call": 3, "module_prefix": "enc"}, {"graph": "b0", "call": 3}])");
    const std::optional<GraphFile> fast = load_buffer_fast(text, "s.json", {});
    ASSERT_TRUE(fast.has_value());
    const GraphFile slow = load_buffer_nlohmann(text, "s.json", {});
    for (const GraphFile* f : {&*fast, &slow}) {
        ASSERT_EQ(f->step.size(), 2u);
        EXPECT_EQ(f->graph(f->step[0].graph).name, "f0");
        EXPECT_EQ(f->step[0].module_prefix, "enc");
        EXPECT_EQ(f->graph(f->step[1].graph).name, "b0");
        EXPECT_EQ(f->step[1].call, 3u);
        EXPECT_EQ(f->role(f->find_storage(13)), StorageRole::OptimizerState);
    }
    EXPECT_EQ(to_json(*fast), to_json(slow));
    const GraphFile again = load_buffer(to_json(slow), "again.json");
    EXPECT_EQ(to_json(again), to_json(slow));
    EXPECT_EQ(again.step[0].module_prefix, "enc");
    StorageRole r{};
    EXPECT_TRUE(parse_storage_role("unsharded_parameter", r));
    EXPECT_EQ(r, StorageRole::UnshardedParameter);
}

TEST(WholeStep, ReaderRejectsABadStep) {
    const auto message = [](const std::string& step) {
        try {
            load_buffer(file_text(step), "s.json");
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(message(R"([{"graph": "nope", "call": 0}])").find("step[0]: unknown graph 'nope'"), std::string::npos);
    EXPECT_NE(
        message(R"([{"graph": "f0", "call": -1}])").find("'call' must be an integer from 0 to 2147483647, got -1"),
        std::string::npos);
    EXPECT_NE(message(R"([{"graph": "f0"}])").find("step[0]: missing 'call'"), std::string::npos);
    EXPECT_NE(message(R"([{"graph": "f0", "call": 0, "call": 1}])").find("duplicate key 'call'"), std::string::npos);
    EXPECT_NE(message(R"({"graph": "f0"})").find("'step' must be an array"), std::string::npos);
}

TEST(WholeStep, CarryRulesByHand) {
    const GraphFile file = load_buffer(file_text(kStep), "s.json");
    const WholeStep ws = whole_step(file, default_counted(file));
    EXPECT_EQ(ws.parameters, 150); // lin.weight + head.weight, once each
    EXPECT_EQ(ws.optimizer_state, 300);
    // f0 profile [110,130,130,160,160]; carry: head.weight 50 + optimizer 300 = 350.
    // f1 profile [80,120,120,124,124]; carry: lin.weight 100 + 300 + f0's saved a 20 = 420.
    // b1 profile [94,144,104,134,134] (c freed at gw1; W1 primal and T1 tangent kept);
    //    carry: lin.weight 100 + 300 + a 20 + the loss 4 = 424.
    // b0 profile [50,150,130]; carry: 150 (it holds no parameter) + 300 + grad of head.weight 50
    //    + the loss 4 = 504.
    EXPECT_EQ(ws.timeline, (std::vector<std::int64_t>{460, 480, 480, 510, 510, 500, 540, 540, 544, 544, 518, 568, 528,
                                                      558, 558, 554, 654, 634}));
    ASSERT_EQ(ws.segments.size(), 4u);
    EXPECT_EQ(ws.segments[2].carry.saved, 20);
    EXPECT_EQ(ws.segments[2].carry.outputs, 4);
    EXPECT_EQ(ws.segments[3].carry.gradients, 50);
    EXPECT_EQ(ws.segments[3].begin, 15u);
    EXPECT_EQ(ws.peak, 654);
    EXPECT_EQ(ws.peak_index, 16u);
    EXPECT_EQ(ws.peak_segment, 3u);
    EXPECT_TRUE(ws.missing_backward.empty());
    const StepPoint p = step_point(ws, 16);
    EXPECT_EQ(p.segment, 3u);
    EXPECT_EQ(p.index, 1u);
    // Counting every device changes nothing here (all on cuda:0); counting none leaves 0.
    EXPECT_EQ(whole_step(file, StorageMask(file.storages.size(), 0)).peak, 0);
}

TEST(WholeStep, ABackwardThatNeverRunsKeepsItsSavedActivations) {
    const GraphFile file = load_buffer(
        file_text(R"([{"graph": "f0", "call": 0}, {"graph": "f1", "call": 0}, {"graph": "b1", "call": 0}])"), "s.json");
    const WholeStep ws = whole_step(file, default_counted(file));
    EXPECT_EQ(ws.missing_backward, (std::vector<std::uint32_t>{0}));
    EXPECT_EQ(ws.segments[2].carry.saved, 20);
    EXPECT_EQ(step_entry_name(file, file.step[0]), "f0");
}

TEST(WholeStep, RepeatedCallsUnderTwoPrefixesCountTwoSetsOfParameters) {
    const GraphFile file = load_buffer(file_text(R"([{"graph": "f0", "call": 0, "module_prefix": "blocks.0"},
        {"graph": "f0", "call": 1, "module_prefix": "blocks.1"}, {"graph": "b0", "call": 1, "module_prefix": "blocks.1"},
        {"graph": "b0", "call": 0, "module_prefix": "blocks.0"}])"),
                                       "s.json");
    const WholeStep ws = whole_step(file, default_counted(file));
    EXPECT_EQ(ws.parameters, 200); // blocks.0.lin.weight and blocks.1.lin.weight
    // Call 1 of f0 runs with call 0's saved a (20) pending and blocks.0's weight outside.
    EXPECT_EQ(ws.segments[1].carry.saved, 20);
    EXPECT_EQ(ws.segments[1].carry.parameters, 100);
    // b0 of call 1: call 0's a still pending; call 1's a is its own placeholder. No loss held:
    // f0 passes b on (only the last forward before the first backward holds its outputs: f0 call 1).
    EXPECT_EQ(ws.segments[2].carry.saved, 20);
    EXPECT_EQ(ws.segments[2].carry.outputs, 30);
    // The gradient of blocks.1.lin.weight (100) is carried into b0 of call 0.
    EXPECT_EQ(ws.segments[3].carry.gradients, 100);
    EXPECT_EQ(step_entry_name(file, file.step[1]), "f0 #2 (blocks.1)");
}

TEST(WholeStep, AFileWithoutAStepIsAnError) {
    const GraphFile file = load_buffer(file_text(""), "nostep.json");
    try {
        whole_step(file, default_counted(file));
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("nostep.json: the file has no \"step\""), std::string::npos);
    }
}

namespace {
// The storages a segment carries, as (storage file id, kind) in carried_at's order.
std::vector<std::pair<std::int64_t, CarryKind>> carried_ids(const GraphFile& file, const WholeStep& ws,
                                                            std::uint32_t seg) {
    std::vector<std::pair<std::int64_t, CarryKind>> out;
    for (const CarriedStorage& c : carried_at(ws, seg))
        out.push_back({file.storages[c.storage.index()].file_id, c.kind});
    return out;
}
} // namespace

TEST(WholeStep, CarriedStoragesByHand) {
    const GraphFile file = load_buffer(file_text(kStep), "s.json");
    const WholeStep ws = whole_step(file, default_counted(file));
    using K = CarryKind;
    // f0 holds lin.weight: head.weight and both optimizer states outside.
    EXPECT_EQ(carried_ids(file, ws, 0), (std::vector<std::pair<std::int64_t, K>>{
                                            {6, K::Parameter}, {13, K::OptimizerState}, {14, K::OptimizerState}}));
    // f1: lin.weight, the state, f0's saved a (storage 2).
    EXPECT_EQ(carried_ids(file, ws, 1),
              (std::vector<std::pair<std::int64_t, K>>{
                  {0, K::Parameter}, {13, K::OptimizerState}, {14, K::OptimizerState}, {2, K::Saved}}));
    // b1: also the loss (storage 9) f1 leaves; c (8) is b1's own placeholder, not carried.
    EXPECT_EQ(carried_ids(file, ws, 2),
              (std::vector<std::pair<std::int64_t, K>>{
                  {0, K::Parameter}, {13, K::OptimizerState}, {14, K::OptimizerState}, {2, K::Saved}, {9, K::Output}}));
    // b0: both weights (it holds neither), the state, the loss, b1's grad of head.weight (11); a is
    // b0's own input now.
    EXPECT_EQ(carried_ids(file, ws, 3), (std::vector<std::pair<std::int64_t, K>>{{0, K::Parameter},
                                                                                 {6, K::Parameter},
                                                                                 {13, K::OptimizerState},
                                                                                 {14, K::OptimizerState},
                                                                                 {9, K::Output},
                                                                                 {11, K::Gradient}}));
    for (const CarriedStorage& c : carried_at(ws, 3)) {
        if (c.kind == K::Gradient) {
            EXPECT_EQ(c.source, 2u); // made by b1, entry 2
        }
    }
    EXPECT_TRUE(carried_at(ws, 4).empty()); // no such segment
}

// On every bundled example with a step, the carried storages add up to each entry's carry, kind by
// kind (the app and the CLI list them; whole_step's totals are computed separately).
TEST(WholeStep, CarriedStoragesAddUpToTheCarryOnTheExamples) {
    for (const char* name : {"gpt_adam", "gpt_break"}) {
        const GraphFile file =
            load_file(std::string(FXMEM_TEST_DATA) + "/../../resources/examples/" + name + ".fxmem.json");
        const WholeStep ws = whole_step(file, default_counted(file));
        ASSERT_FALSE(ws.segments.empty()) << name;
        std::int64_t state_seen = 0;
        for (std::uint32_t s = 0; s < ws.segments.size(); ++s) {
            StepCarry sum;
            for (const CarriedStorage& c : carried_at(ws, s)) {
                switch (c.kind) {
                case CarryKind::Parameter: sum.parameters += c.bytes; break;
                case CarryKind::OptimizerState: sum.optimizer_state += c.bytes; break;
                case CarryKind::Saved: sum.saved += c.bytes; break;
                case CarryKind::Gradient: sum.gradients += c.bytes; break;
                case CarryKind::Output: sum.outputs += c.bytes; break;
                }
                EXPECT_EQ(c.bytes, file.nbytes(c.storage)) << name;
            }
            const StepCarry& want = ws.segments[s].carry;
            EXPECT_EQ(sum.parameters, want.parameters) << name << " segment " << s;
            EXPECT_EQ(sum.optimizer_state, want.optimizer_state) << name << " segment " << s;
            EXPECT_EQ(sum.saved, want.saved) << name << " segment " << s;
            EXPECT_EQ(sum.gradients, want.gradients) << name << " segment " << s;
            EXPECT_EQ(sum.outputs, want.outputs) << name << " segment " << s;
            state_seen = std::max(state_seen, sum.optimizer_state);
        }
        // Adam's exp_avg and exp_avg_sq, the file's non-CPU optimizer_state storages summed (by a
        // script over the JSON; the 4-byte `step` counters are CPU tensors, not counted): no step
        // graph holds them, so every entry carries all of them.
        EXPECT_EQ(state_seen, std::string(name) == "gpt_adam" ? 5402624 : 6988800) << name;
    }
}

// Optimizer state belongs to its parameter's module, in every graph (the breakdown by module and
// the live tables of the whole step put "lin.weight exp_avg" under "lin").
TEST(WholeStep, OptimizerStateIsOwnedByItsParametersModule) {
    const GraphFile file = load_buffer(file_text(kStep), "s.json");
    const RoleAssignment roles = resolve_roles(file);
    for (std::size_t g = 0; g < file.graphs.size(); ++g) {
        const Attribution a(file, GraphId(static_cast<std::int32_t>(g)), roles);
        EXPECT_EQ(a.tree()[a.owner(file.find_storage(13))].name, "lin") << g;
        EXPECT_EQ(a.tree()[a.owner(file.find_storage(14))].name, "head") << g;
    }
}
