// Loader and writer: round trips, key order, progress, unknown fields, file access.
#include "fxmem/error.h"
#include "fxmem/io.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace fxmem;

namespace {

// A file that uses every part of the model: several devices, nested vals with every token kind,
// escapes in strings, meta and producer, two graphs and a pair.
GraphFile rich_file() {
    GraphFile f;
    f.source = "rich";
    f.producer_json = R"({"torch":"2.13","argv":["a","b"],"n":3,"x":1.5,"ok":true,"none":null})";
    const StorageId a = f.add_storage(10, "cuda:0", 4096);
    const StorageId b = f.add_storage(3, "cpu", 16);
    const StorageId c = f.add_storage(7, "cuda:1", 0);
    const StorageId d = f.add_storage(0, "meta", 1000000000000);
    {
        GraphBuilder g(f, "fwd", GraphKind::Forward);
        g.add("primals_1", OpKind::Placeholder, "primals_1", {}, {a});
        g.begin_node("split", OpKind::CallFunction, "aten.split.Tensor");
        g.add_input("primals_1");
        g.val_begin_list();
        const std::int64_t shape[2] = {2, 3}, stride[2] = {3, 1};
        g.val_tensor(a, "torch.float16", shape, stride, 5);
        g.val_null();
        g.val_begin_list();
        g.val_other("SymInt(s0)");
        g.val_begin_list();
        g.val_end_list();
        g.val_tensor(b, "torch.int64", {}, {}, 0);
        g.val_end_list();
        g.val_tensor(c, "torch.float32", shape, stride, 0);
        g.val_end_list();
        g.set_stack_trace("File \"model.py\", line 3\n\tx = \"q\\\" \x01 \xc3\xa9");
        g.set_meta_json(R"({"seq_nr":4,"nn_module_stack":{"m":["L","x"]}})");
        g.end_node();
        g.add("getitem", OpKind::CallFunction, "getitem", {"split"}, {a});
        g.add("scalar", OpKind::CallMethod, "item", {"getitem"}, {});
        g.add("big", OpKind::CallModule, "linear", {"primals_1", "getitem"}, {d});
        g.add("output", OpKind::Output, "output", {"getitem", "big"}, {});
        g.finish();
    }
    {
        GraphBuilder g(f, "bwd", GraphKind::Backward);
        g.add("tangents_1", OpKind::Placeholder, "tangents_1", {}, {a});
        g.add("w", OpKind::GetAttr, "weight", {}, {b});
        g.add("output", OpKind::Output, "output", {"tangents_1"}, {});
        g.finish();
    }
    {
        GraphBuilder g(f, "lonely \"graph\"", GraphKind::Other);
        g.add("output", OpKind::Output, "output", {}, {});
        g.finish();
    }
    f.add_pair("fwd", "bwd");
    return f;
}

void expect_same(const GraphFile& x, const GraphFile& y) {
    EXPECT_EQ(x.producer_json, y.producer_json);
    ASSERT_EQ(x.storages.size(), y.storages.size());
    for (std::size_t i = 0; i < x.storages.size(); ++i) {
        const StorageId s(static_cast<std::int32_t>(i));
        EXPECT_EQ(x.storages[i].file_id, y.storages[i].file_id);
        EXPECT_EQ(x.nbytes(s), y.nbytes(s));
        EXPECT_EQ(x.device(s), y.device(s));
        EXPECT_EQ(x.is_cpu(s), y.is_cpu(s));
    }
    EXPECT_EQ(x.total_bytes(), y.total_bytes());
    ASSERT_EQ(x.graphs.size(), y.graphs.size());
    for (std::size_t gi = 0; gi < x.graphs.size(); ++gi) {
        const Graph &g = x.graphs[gi], &h = y.graphs[gi];
        EXPECT_EQ(g.name, h.name);
        EXPECT_EQ(g.kind, h.kind);
        ASSERT_EQ(g.size(), h.size());
        for (std::size_t i = 0; i < g.size(); ++i) {
            const NodeId n(static_cast<std::int32_t>(i));
            EXPECT_EQ(g.node(n).name, h.node(n).name);
            EXPECT_EQ(g.node(n).op, h.node(n).op);
            EXPECT_EQ(g.target(n), h.target(n));
            EXPECT_EQ(g.stack_trace(n), h.stack_trace(n));
            EXPECT_EQ(g.meta_json(n), h.meta_json(n));
            EXPECT_TRUE(std::ranges::equal(g.inputs(n), h.inputs(n)));
            EXPECT_TRUE(std::ranges::equal(g.users(n), h.users(n)));
            EXPECT_TRUE(std::ranges::equal(g.outputs(n), h.outputs(n)));
            const auto gv = g.val(n), hv = h.val(n);
            ASSERT_EQ(gv.size(), hv.size()) << g.node(n).name;
            for (std::size_t k = 0; k < gv.size(); ++k) {
                EXPECT_EQ(gv[k].kind, hv[k].kind);
                if (gv[k].kind == ValToken::Kind::List) {
                    EXPECT_EQ(gv[k].payload, hv[k].payload);
                }
                if (gv[k].kind == ValToken::Kind::Other) {
                    EXPECT_EQ(g.others[gv[k].payload], h.others[hv[k].payload]);
                }
            }
            const auto gt = g.node_tensors(n), ht = h.node_tensors(n);
            ASSERT_EQ(gt.size(), ht.size());
            for (std::size_t k = 0; k < gt.size(); ++k) {
                EXPECT_EQ(gt[k].storage, ht[k].storage);
                EXPECT_EQ(x.dtypes[gt[k].dtype], y.dtypes[ht[k].dtype]);
                EXPECT_TRUE(std::ranges::equal(g.shape(gt[k]), h.shape(ht[k])));
                EXPECT_TRUE(std::ranges::equal(g.stride(gt[k]), h.stride(ht[k])));
                EXPECT_EQ(gt[k].offset, ht[k].offset);
            }
        }
    }
    ASSERT_EQ(x.pairs.size(), y.pairs.size());
    for (std::size_t i = 0; i < x.pairs.size(); ++i) {
        EXPECT_EQ(x.pairs[i].forward, y.pairs[i].forward);
        EXPECT_EQ(x.pairs[i].backward, y.pairs[i].backward);
    }
}

// Rewrites a document with every object's keys in reverse order (storages after graphs, val
// before name, ...), except inside the free-form "producer" and "meta", whose text is kept as is.
// nlohmann::ordered_json keeps insertion order.
nlohmann::ordered_json reverse_keys(const nlohmann::ordered_json& j) {
    if (j.is_array()) {
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        for (const auto& e : j) out.push_back(reverse_keys(e));
        return out;
    }
    if (!j.is_object()) return j;
    std::vector<std::pair<std::string, nlohmann::ordered_json>> items;
    for (auto it = j.begin(); it != j.end(); ++it) {
        const bool free_form = it.key() == "producer" || it.key() == "meta";
        items.emplace_back(it.key(), free_form ? it.value() : reverse_keys(it.value()));
    }
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (auto it = items.rbegin(); it != items.rend(); ++it) out[it->first] = it->second;
    return out;
}

std::string message_of(std::string_view text) {
    try {
        load_buffer(text, "mem.json");
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

std::string temp_dir(const std::string& name) {
    const auto dir = std::filesystem::path(::testing::TempDir()) / ("fxmem_io_" + name);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir.string();
}

} // namespace

TEST(Io, RoundTripKeepsEverything) {
    const GraphFile original = rich_file();
    const std::string text = to_json(original);
    const GraphFile loaded = load_buffer(text, "round.json");
    EXPECT_EQ(loaded.source, "round.json");
    expect_same(original, loaded);
    EXPECT_EQ(to_json(loaded), text); // the writer is deterministic and the reader loses nothing
    // The output is valid JSON that other tools can read.
    const auto j = nlohmann::json::parse(text);
    EXPECT_EQ(j["format"], "fxmem");
    EXPECT_EQ(j["version"], 1);
    EXPECT_EQ(j["producer"]["argv"][1], "b");
    EXPECT_EQ(j["graphs"][0]["nodes"][1]["stack_trace"], original.graphs[0].stack_trace(NodeId(1)));
    EXPECT_EQ(j["graphs"][0]["nodes"][1]["meta"]["nn_module_stack"]["m"][0], "L");
    EXPECT_EQ(j["pairs"][0]["backward"], "bwd");
}

TEST(Io, ValStructureAndTensorsSurvive) {
    const GraphFile f = load_buffer(to_json(rich_file()), "v.json");
    const Graph& g = f.graphs[0];
    const NodeId split = g.find("split");
    // [T(a), null, [other, [], T(b)], T(c)] in preorder.
    const auto val = g.val(split);
    ASSERT_EQ(val.size(), 8u);
    EXPECT_EQ(val[0].kind, ValToken::Kind::List);
    EXPECT_EQ(val[0].payload, 4u);
    EXPECT_EQ(val[1].kind, ValToken::Kind::Tensor);
    EXPECT_EQ(val[2].kind, ValToken::Kind::Null);
    EXPECT_EQ(val[3].kind, ValToken::Kind::List);
    EXPECT_EQ(val[3].payload, 3u);
    EXPECT_EQ(val[4].kind, ValToken::Kind::Other);
    EXPECT_EQ(g.others[val[4].payload], "SymInt(s0)");
    EXPECT_EQ(val[5].kind, ValToken::Kind::List);
    EXPECT_EQ(val[5].payload, 0u);
    EXPECT_EQ(val[6].kind, ValToken::Kind::Tensor);
    EXPECT_EQ(val[7].kind, ValToken::Kind::Tensor);
    const auto tensors = g.node_tensors(split);
    ASSERT_EQ(tensors.size(), 3u);
    EXPECT_EQ(f.storages[tensors[0].storage.index()].file_id, 10);
    EXPECT_EQ(f.dtypes[tensors[0].dtype], "torch.float16");
    EXPECT_EQ(std::vector<std::int64_t>(g.shape(tensors[0]).begin(), g.shape(tensors[0]).end()),
              (std::vector<std::int64_t>{2, 3}));
    EXPECT_EQ(tensors[0].offset, 5);
    EXPECT_EQ(tensors[1].rank, 0u);
    EXPECT_EQ(f.storages[tensors[2].storage.index()].file_id, 7);
    // Output storages: a, b, c in val order, each once.
    const auto outs = g.outputs(split);
    ASSERT_EQ(outs.size(), 3u);
    EXPECT_EQ(f.nbytes(outs[0]), 4096);
    EXPECT_EQ(f.nbytes(outs[1]), 16);
    EXPECT_EQ(f.nbytes(outs[2]), 0);
    EXPECT_EQ(f.total_bytes(), 4096 + 16 + 0 + 1000000000000);
}

TEST(Io, AnyKeyOrderGivesTheSameFile) {
    const GraphFile original = rich_file();
    const std::string text = to_json(original);
    const std::string reversed = reverse_keys(nlohmann::ordered_json::parse(text)).dump(1);
    ASSERT_LT(reversed.find("\"graphs\""), reversed.find("\"storages\"")); // the hard order
    ASSERT_LT(reversed.find("\"pairs\""), reversed.find("\"graphs\""));
    const GraphFile loaded = load_buffer(reversed, "reversed.json");
    expect_same(original, loaded);
    EXPECT_EQ(to_json(loaded), text);
}

TEST(Io, GraphNameAfterNodesWithStoragesFirst) {
    // Storages known, but the graph's name and kind come after its nodes: the graph is replayed at
    // its end, still in file order with the graphs around it.
    const std::string text = R"({"format": "fxmem", "version": 1,
      "storages": [{"id": 5, "device": "cuda:0", "nbytes": 8}],
      "graphs": [
        {"name": "first", "kind": "forward", "nodes": [{"name": "o", "op": "output", "target": "output", "inputs": [], "val": null}]},
        {"nodes": [{"val": {"offset": 0, "stride": [1], "shape": [2], "dtype": "f32", "storage": 5},
                    "inputs": [], "target": "x", "op": "placeholder", "name": "x"},
                   {"name": "o", "op": "output", "target": "output", "inputs": ["x"], "val": null}],
         "kind": "backward", "name": "second"},
        {"name": "third", "kind": "other", "nodes": [{"name": "o", "op": "output", "target": "output", "inputs": [], "val": null}]}
      ]})";
    const GraphFile f = load_buffer(text, "late.json");
    ASSERT_EQ(f.graphs.size(), 3u);
    EXPECT_EQ(f.graphs[0].name, "first");
    EXPECT_EQ(f.graphs[1].name, "second");
    EXPECT_EQ(f.graphs[1].kind, GraphKind::Backward);
    EXPECT_EQ(f.graphs[2].name, "third");
    EXPECT_EQ(f.graphs[1].outputs(NodeId(0)).size(), 1u);
    EXPECT_EQ(f.graphs[1].users(NodeId(0))[0], NodeId(1));
}

TEST(Io, UnknownFieldsAreIgnored) {
    const std::string text = R"({"format": "fxmem", "version": 1, "future": {"deep": [[[{"a": 1}]]], "x": "y"},
      "reference": {"peak": 123, "profile": [0, 1, 2]},
      "storages": [{"id": 0, "device": "cuda:0", "nbytes": 8, "alignment": 64, "extra": [1.5, null, true]}],
      "graphs": [{"name": "g", "kind": "inference", "color": "blue", "nodes": [
        {"name": "x", "op": "placeholder", "target": "x", "inputs": [], "users": ["o"], "unused": {"a": [1]},
         "val": {"storage": 0, "dtype": "f32", "shape": [2], "stride": [1], "offset": 0, "requires_grad": true}},
        {"name": "o", "op": "output", "target": "output", "inputs": ["x"], "val": [{"other": "None", "why": 1}]}]}],
      "pairs": []})";
    const GraphFile f = load_buffer(text, "extra.json");
    ASSERT_EQ(f.graphs.size(), 1u);
    EXPECT_EQ(f.graphs[0].size(), 2u);
    EXPECT_EQ(f.storages.size(), 1u);
    EXPECT_TRUE(f.pairs.empty());
    EXPECT_TRUE(f.producer_json.empty());
}

TEST(Io, MetaAndProducerAreReserialisedCompactly) {
    const std::string text = R"({"format": "fxmem", "version": 1,
      "producer": { "name" : "fxmem_export", "list": [ 1, -2, 3.25e2, "a\"b\n", {}, [], null, false ] },
      "storages": [],
      "graphs": [{"name": "g", "kind": "other", "nodes": [
        {"name": "o", "op": "output", "target": "output", "inputs": [], "val": null,
         "meta": { "k" : [ {"x": 1}, [ [ ] ] ], "u": "\u00e9" }, "stack_trace": null}]}]})";
    const GraphFile f = load_buffer(text, "meta.json");
    EXPECT_EQ(f.producer_json, R"({"name":"fxmem_export","list":[1,-2,3.25e2,"a\"b\n",{},[],null,false]})");
    EXPECT_EQ(f.graphs[0].meta_json(NodeId(0)), "{\"k\":[{\"x\":1},[[]]],\"u\":\"\xc3\xa9\"}");
    EXPECT_TRUE(f.graphs[0].stack_trace(NodeId(0)).empty());
    // A scalar producer is kept as its JSON text.
    const GraphFile g =
        load_buffer(R"({"format":"fxmem","version":1,"producer":"torch 2.13","storages":[],"graphs":[]})", "p");
    EXPECT_EQ(g.producer_json, "\"torch 2.13\"");
}

TEST(Io, ByteOrderMarkIsAccepted) {
    const GraphFile f =
        load_buffer("\xEF\xBB\xBF{\"format\":\"fxmem\",\"version\":1,\"storages\":[],\"graphs\":[]}", "bom.json");
    EXPECT_TRUE(f.graphs.empty());
}

TEST(Io, StorageIdsAreMappedToDenseIds) {
    const std::string text = R"({"format":"fxmem","version":1,
      "storages":[{"id":900,"device":"cuda:0","nbytes":1},{"id":2,"device":"cpu","nbytes":2},{"id":41,"device":"cuda:0","nbytes":4}],
      "graphs":[{"name":"g","kind":"other","nodes":[
        {"name":"a","op":"placeholder","target":"a","inputs":[],"val":[{"storage":41,"dtype":"f","shape":[],"stride":[],"offset":0},
                                                                     {"storage":900,"dtype":"f","shape":[],"stride":[],"offset":0},
                                                                     {"storage":41,"dtype":"f","shape":[1],"stride":[1],"offset":0}]},
        {"name":"o","op":"output","target":"output","inputs":["a"],"val":null}]}]})";
    const GraphFile f = load_buffer(text, "ids.json");
    EXPECT_EQ(f.find_storage(900), StorageId(0));
    EXPECT_EQ(f.find_storage(2), StorageId(1));
    EXPECT_EQ(f.find_storage(41), StorageId(2));
    EXPECT_EQ(f.devices.size(), 2u);
    EXPECT_TRUE(f.is_cpu(StorageId(1)));
    const auto outs = f.graphs[0].outputs(NodeId(0));
    ASSERT_EQ(outs.size(), 2u); // 41 twice counts once
    EXPECT_EQ(outs[0], StorageId(2));
    EXPECT_EQ(outs[1], StorageId(0));
    EXPECT_EQ(f.total_bytes(), 7);
}

TEST(Io, SyntaxErrorsGiveLineAndColumn) {
    // Line 3 holds the stray comma; the parser notices at the '}' in column 5.
    const std::string text = "{\"format\": \"fxmem\",\n \"version\": 1,\n  \"a\": 1,\n    }";
    const std::string msg = message_of(text);
    EXPECT_EQ(msg.rfind("mem.json:4:5: invalid JSON: ", 0), 0u) << msg;
    EXPECT_NE(message_of("{\"format\": \"fx").find("truncated"), std::string::npos);
    EXPECT_EQ(message_of(" \n\t "), "mem.json: the file is empty (expected a JSON object)");
    EXPECT_EQ(message_of("[1, 2]"), "mem.json:1:1: the top level must be a JSON object, got an array");
}

TEST(Io, ContractErrorsNamePlaceAndLine) {
    const std::string text =
        "{\"format\":\"fxmem\",\"version\":1,\"storages\":[],\n"
        "\"graphs\":[{\"name\":\"g\",\"kind\":\"forward\",\"nodes\":[\n"
        "{\"name\":\"a\",\"op\":\"placeholder\",\"target\":\"a\",\"inputs\":[],\"val\":null},\n"
        "{\"name\":\"b\",\"op\":\"call_function\",\"target\":\"f\",\"inputs\":[\"a\",\"c\"],\"val\":null},\n"
        "{\"name\":\"c\",\"op\":\"output\",\"target\":\"output\",\"inputs\":[\"b\"],\"val\":null}]}]}";
    // Column 76 is the node's closing brace: the inputs are checked when the node is complete.
    EXPECT_EQ(message_of(text), "mem.json:4:76: graph 'g', node 'b': input 'c' is defined later (or unknown)");
}

TEST(Io, ProgressIsReportedAndCanCancel) {
    // About 3 MB: one graph with many nodes.
    GraphFile f;
    f.source = "big";
    const StorageId s = f.add_storage(0, "cuda:0", 64);
    GraphBuilder g(f, "g", GraphKind::Inference);
    g.add("x", OpKind::Placeholder, "x", {}, {s});
    for (int i = 0; i < 20000; ++i) g.add("n" + std::to_string(i), OpKind::CallFunction, "aten.view", {"x"}, {s});
    g.add("output", OpKind::Output, "output", {"x"}, {});
    g.finish();
    const std::string text = to_json(f);
    ASSERT_GT(text.size(), 2u << 20);

    std::vector<double> seen;
    const GraphFile loaded = load_buffer(text, "big", {{}, [&](double fraction) { seen.push_back(fraction); }});
    EXPECT_EQ(loaded.graphs[0].size(), 20002u);
    // Every ~1 MB, increasing, ending at exactly 1.
    ASSERT_GE(seen.size(), 3u);
    EXPECT_LE(seen.size(), text.size() / (1u << 20) + 2);
    EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
    EXPECT_GT(seen.front(), 0.0);
    EXPECT_EQ(seen.back(), 1.0);

    int calls = 0;
    // The cancel check is asked where progress is reported: the second time stops the load.
    EXPECT_THROW(load_buffer(text, "big", {[&] { return ++calls == 2; }, {}}), Cancelled);
    EXPECT_EQ(calls, 2);
}

TEST(Io, LoadFileNamesThePath) {
    const std::string dir = temp_dir("load");
    const std::string missing = dir + "/nope.json";
    try {
        load_file(missing);
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), missing + ": cannot open: No such file or directory");
    }
    try {
        load_file(dir);
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), dir + ": cannot read: it is a directory, not a regular file");
    }
    const std::string path = dir + "/rich.json";
    save_file(rich_file(), path);
    const GraphFile f = load_file(path);
    EXPECT_EQ(f.source, path);
    expect_same(rich_file(), f);
}

TEST(Io, WriteFileAtomicallyReplacesAndLeavesNoTemporaries) {
    const std::string dir = temp_dir("atomic");
    const std::string path = dir + "/out.json";
    write_file_atomically(path, "first");
    write_file_atomically(path, "second\n");
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    EXPECT_EQ(ss.str(), "second\n");
    int files = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        ++files;
        EXPECT_EQ(e.path().filename(), "out.json");
    }
    EXPECT_EQ(files, 1);
}

TEST(Io, WriteFileAtomicallyFailsWithThePath) {
    const std::string dir = temp_dir("atomic_fail");
    const std::string path = dir + "/missing_dir/out.json";
    try {
        write_file_atomically(path, "x");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()),
                  "cannot write '" + path + "': the directory '" + dir + "/missing_dir' does not exist");
    }
    // The target is a directory: refused, and no temporary file is left.
    std::filesystem::create_directories(dir + "/taken");
    EXPECT_THROW(write_file_atomically(dir + "/taken", "x"), Error);
    int files = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        ++files;
        EXPECT_EQ(e.path().filename(), "taken");
    }
    EXPECT_EQ(files, 1);
}
