// A random graph generator for the property tests: placeholders (primals and others) and get_attr
// nodes anywhere, views and in-place results, multi-output nodes with getitems, nodes without a
// val, CPU and meta storages, unused storages, and (rarely) a node that outputs a storage of a
// node it does not depend on. Also random legal schedules.
#pragma once
#include "fxmem/model.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace fxmem::testing {

struct RandomGraphOptions {
    std::size_t nodes = 40;
    double placeholder = 0.08, get_attr = 0.04, view = 0.15, multi = 0.08, getitem = 0.1, none = 0.05, rogue = 0.01;
    double cpu = 0.1, meta = 0.03;
    int max_inputs = 3;
    bool output = true;
    // Placeholders emitted first (a backward graph's inputs): name and storages.
    std::vector<std::pair<std::string, std::vector<StorageId>>> preset;
};

class RandomGraphs {
public:
    explicit RandomGraphs(std::uint64_t seed) : rng_(seed) {}
    std::mt19937_64& rng() { return rng_; }

    // Appends a graph named `name` to `file`.
    const Graph& make(GraphFile& file, const std::string& name, const RandomGraphOptions& o = {}) {
        GraphBuilder b(file, name, GraphKind::Other);
        std::vector<std::vector<StorageId>> outs; // per node so far
        std::vector<int> multi_nodes;
        std::vector<NodeId> inputs;
        std::vector<StorageId> val;
        int primals = 0;
        for (const auto& [pname, pval] : o.preset) {
            b.add(pname, OpKind::Placeholder, pname, std::span<const NodeId>(), std::span<const StorageId>(pval));
            std::vector<StorageId> dedup;
            for (StorageId s : pval)
                if (std::find(dedup.begin(), dedup.end(), s) == dedup.end()) dedup.push_back(s);
            outs.push_back(std::move(dedup));
        }
        const std::size_t total = o.preset.size() + o.nodes;
        for (std::size_t i = o.preset.size(); i < total; ++i) {
            inputs.clear();
            val.clear();
            const double r = uniform();
            std::string node_name = "n" + std::to_string(i);
            OpKind op = OpKind::CallFunction;
            if (i == 0 || r < o.placeholder) {
                op = OpKind::Placeholder;
                node_name = coin(0.5) ? "primals_" + std::to_string(++primals) + "_" + std::to_string(i)
                                      : "arg" + std::to_string(i);
                val.push_back(fresh(file, o));
            } else if (r < o.placeholder + o.get_attr) {
                op = OpKind::GetAttr;
                val.push_back(fresh(file, o));
            } else {
                const int k = static_cast<int>(pick(static_cast<std::size_t>(o.max_inputs) + 1));
                for (int j = 0; j < k; ++j) {
                    const NodeId in(static_cast<std::int32_t>(pick(i)));
                    if (std::find(inputs.begin(), inputs.end(), in) == inputs.end()) inputs.push_back(in);
                }
                const double kind = uniform();
                double acc = o.view;
                if (kind < acc) { // view or in-place: a storage of an input, sometimes plus a fresh one
                    const StorageId s = any_output(inputs, outs);
                    if (s.valid()) val.push_back(s);
                    if (!s.valid() || coin(0.2)) val.push_back(fresh(file, o));
                } else if (kind < (acc += o.multi)) {
                    const int m = 2 + static_cast<int>(pick(3));
                    for (int j = 0; j < m; ++j) val.push_back(fresh(file, o));
                    if (coin(0.2)) val.push_back(val.front()); // a repeat: dropped from the outputs
                    multi_nodes.push_back(static_cast<int>(i));
                } else if (kind < (acc += o.getitem) && !multi_nodes.empty()) {
                    const int src = multi_nodes[pick(multi_nodes.size())];
                    const NodeId in(src);
                    if (std::find(inputs.begin(), inputs.end(), in) == inputs.end()) inputs.push_back(in);
                    const auto& so = outs[static_cast<std::size_t>(src)];
                    val.push_back(so[pick(so.size())]);
                } else if (kind < (acc += o.none)) {
                    // no val
                } else if (kind < (acc += o.rogue) && i > 1) {
                    // A storage of any earlier node, dependency or not.
                    const auto& so = outs[pick(i)];
                    if (!so.empty()) val.push_back(so[pick(so.size())]);
                    val.push_back(fresh(file, o));
                } else {
                    val.push_back(fresh(file, o));
                }
            }
            b.add(node_name, op, "t" + std::to_string(i), std::span<const NodeId>(inputs),
                  std::span<const StorageId>(val));
            std::vector<StorageId> dedup;
            for (StorageId s : val)
                if (std::find(dedup.begin(), dedup.end(), s) == dedup.end()) dedup.push_back(s);
            outs.push_back(std::move(dedup));
        }
        if (o.output) {
            inputs.clear();
            for (std::size_t i = 0; i < total; ++i)
                if (coin(0.15)) inputs.emplace_back(static_cast<std::int32_t>(i));
            b.add("output", OpKind::Output, "output", std::span<const NodeId>(inputs), std::span<const StorageId>());
        }
        return b.finish();
    }

    // A random topological order (Kahn's algorithm with random picks); the output node stays last.
    std::vector<NodeId> topological(const Graph& g) {
        const std::size_t n = g.size();
        std::vector<std::uint32_t> missing(n);
        std::vector<NodeId> ready, order;
        const bool has_output = n > 0 && g.nodes.back().op == OpKind::Output;
        for (std::size_t i = 0; i < n; ++i) {
            missing[i] = g.nodes[i].inputs.size();
            if (missing[i] == 0 && !(has_output && i == n - 1)) ready.emplace_back(static_cast<std::int32_t>(i));
        }
        while (!ready.empty()) {
            const std::size_t k = pick(ready.size());
            const NodeId id = ready[k];
            ready[k] = ready.back();
            ready.pop_back();
            order.push_back(id);
            for (NodeId u : g.users(id))
                if (--missing[u.index()] == 0 && !(has_output && u.index() == n - 1)) ready.push_back(u);
        }
        if (has_output) order.emplace_back(static_cast<std::int32_t>(n - 1));
        return order;
    }

    double uniform() { return std::uniform_real_distribution<double>(0, 1)(rng_); }
    bool coin(double p) { return uniform() < p; }
    std::size_t pick(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }

private:
    StorageId fresh(GraphFile& file, const RandomGraphOptions& o) {
        const double r = uniform();
        const char* device = r < o.cpu ? "cpu" : r < o.cpu + o.meta ? "meta" : (coin(0.1) ? "cuda:1" : "cuda:0");
        const auto nbytes = static_cast<std::int64_t>(1 + pick(1000));
        return file.add_storage(next_id_++, device, nbytes);
    }
    StorageId any_output(const std::vector<NodeId>& inputs, const std::vector<std::vector<StorageId>>& outs) {
        std::vector<StorageId> all;
        for (NodeId in : inputs)
            for (StorageId s : outs[in.index()]) all.push_back(s);
        return all.empty() ? StorageId{} : all[pick(all.size())];
    }
    std::mt19937_64 rng_;
    std::int64_t next_id_ = 0;
};

} // namespace fxmem::testing
