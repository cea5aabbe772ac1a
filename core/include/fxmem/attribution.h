// Attribution: what holds the memory at a step, by storage role and by module.
//   resolve_roles():  one role per storage, from the file where it gives one, else derived from
//                     the graphs' structure (rules below and in docs/estimator.md);
//   ModuleTree:       the module hierarchy of one graph, from its nodes' modules;
//   Attribution:      per graph, each storage's role and owner module, built once in O(N + S);
//                     then the live set of any step (LiveSetIndex::live_at) is grouped in
//                     O(live), and LiveSetIndex::profile_by() stacks a whole timeline per group.
// Everything is indexed by dense ids (StorageId, NodeId, tree index); no string work per step
// except building the returned group keys.
#pragma once
#include "fxmem/liveset.h"
#include "fxmem/model.h"

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fxmem {

inline constexpr std::size_t kStorageRoleCount = 11; // StorageRole values, Unknown included
// RoleAssignment::producer_graph's "no graph": a dense per-storage array, so a plain integer.
inline constexpr std::uint32_t kNoGraph = 0xffffffffu;

// How the roles of a file were obtained: all given by the file, none (all derived), or some.
enum class RoleSource : std::uint8_t { File, Derived, Mixed };
std::string_view to_string(RoleSource source); // "file", "derived", "mixed"

struct RoleAssignment {
    std::vector<StorageRole> role; // per StorageId; never Unknown
    // Per StorageId: the first node that computes the storage (not a placeholder, get_attr or
    // output node), graphs in file order, nodes in graph order; kNoGraph / invalid when only
    // placeholders or get_attr nodes hold it. A backward's saved activations point into the forward.
    std::vector<std::uint32_t> producer_graph;
    std::vector<NodeId> producer_node;
    RoleSource source = RoleSource::Derived;
    std::size_t from_file = 0; // storages whose role the file gives
};

// Roles: the file's role where it gives one (GraphFile::role != Unknown). Otherwise the first of
// these rules that applies, over all graphs ("backward" = the backward graph of a GraphFile
// pair; "forward" = any other graph, paired or not):
//   1. held by a "primals*" placeholder of a forward graph -> parameter;
//   2. held by a get_attr node -> buffer;
//   3. held by a "tangents*" placeholder -> tangent;
//   4. held by any other placeholder of a forward graph -> input;
//   5. held by any other placeholder of a backward graph (computed in its forward and saved for
//      backward) -> activation;
//   6. allocated by a computing node of a backward graph and reaching its output node -> gradient;
//   7. allocated by a computing node of a forward graph and reaching its output node -> output
//      (user outputs such as the loss, mutated buffers' new values: rule 5 took the saved ones);
//   8. anything else -> temporary.
// "Allocated by" = the first node of that graph holding the storage. O(S + nodes + node outputs).
RoleAssignment resolve_roles(const GraphFile& file);

// The module hierarchy of one graph. Index 0 is the root (""); every ancestor of a node's module
// is present ("blocks.0.attn" brings "blocks" and "blocks.0"), parents before children.
class ModuleTree {
public:
    static constexpr std::uint32_t kRoot = 0;
    static constexpr std::uint32_t npos = 0xffffffffu;
    struct Module {
        // Qualified, as users write it; "" for the root. A view into the tree's own name pool,
        // valid as long as any copy of the tree lives (ancestors share their descendants' text,
        // so a hostile name with many dots costs its length once, not once per level).
        std::string_view name;
        std::string type;                    // class name; empty when unknown (an ancestor no node names, the root)
        std::uint32_t parent = npos;         // npos for the root
        std::uint32_t depth = 0;             // root 0, "blocks" 1, "blocks.0" 2, ...
        std::vector<std::uint32_t> children; // in order of first appearance
    };

    ModuleTree(); // the root alone
    explicit ModuleTree(const Graph& graph);

    std::size_t size() const { return modules_.size(); }
    const Module& operator[](std::uint32_t m) const { return modules_[m]; }
    const std::vector<Module>& modules() const { return modules_; }
    std::uint32_t max_depth() const { return max_depth_; }
    // The tree index of a node's module; the root when the node has none.
    std::uint32_t node_module(NodeId node) const { return node_module_[node.index()]; }
    // m's ancestor at `depth`; m itself when m is not deeper.
    std::uint32_t ancestor_at_depth(std::uint32_t m, std::uint32_t depth) const;
    // a == m or a is an ancestor of m. O(depth).
    bool contains(std::uint32_t a, std::uint32_t m) const { return ancestor_at_depth(m, modules_[a].depth) == a; }
    // The module named exactly `name`, or npos.
    std::uint32_t find(std::string_view name) const;
    // The deepest module whose name is `name` or a dotted prefix of it; the root at worst.
    std::uint32_t nearest(std::string_view name) const;
    // The depth of the model's repeated blocks, its layers ("layers.0", "layers.1", ... rather
    // than "layers" holding everything): the shallowest depth with `min_modules` modules or more;
    // the deepest when no depth has that many (0 without modules). See the free function.
    std::uint32_t layer_depth(std::size_t min_modules = 6) const;
    // The module named `name`, added with its missing ancestors when no node runs in it (a
    // parameter's module that a parent's functional call uses: MultiheadAttention's out_proj).
    std::uint32_t add(std::string_view name) { return intern(name); }
    // Gives module m its class name when it has none yet (the first type given stays).
    void set_type_if_unknown(std::uint32_t m, std::string_view type) {
        if (modules_[m].type.empty()) modules_[m].type = type;
    }

private:
    friend struct detail::WorkCounters;
    std::vector<Module> modules_;
    std::vector<std::uint32_t> node_module_;         // per NodeId
    std::shared_ptr<std::deque<std::string>> names_; // distinct full names; elements never move
    // A module's children are found by their last dotted component: by a scan of its children
    // while it has at most kScanChildren (a deep chain: one child each, no hashing, memory read
    // in order), then through child_, keyed by (parent index, component). Either way interning a
    // name costs O(its length), however many dots it has.
    static constexpr std::size_t kScanChildren = 8;
    struct ChildKey {
        std::uint32_t parent;
        std::string_view component;
        bool operator==(const ChildKey&) const = default;
    };
    struct ChildHash {
        std::atomic<std::uint64_t>* counted; // lookup_bytes_
        std::size_t operator()(const ChildKey& k) const;
    };
    // Work done by lookups, for core's tests (detail::WorkCounters). Atomic, relaxed: const lookups
    // run on several threads at once on one tree (a tree is shared read-only between threads).
    std::shared_ptr<std::atomic<std::uint64_t>> lookup_bytes_ = std::make_shared<std::atomic<std::uint64_t>>(0);
    std::unordered_map<ChildKey, std::uint32_t, ChildHash> child_{16, ChildHash{lookup_bytes_.get()}};
    std::vector<std::string_view> component_; // per module: its last component (a view of its name)
    std::uint32_t max_depth_ = 0;
    std::uint32_t intern(std::string_view name); // adds the module and its missing ancestors
    std::uint32_t child(std::uint32_t parent, std::string_view component) const; // npos when absent
};

// One layer depth for graphs shown together (a joined pair), so that the timeline's bands and the
// graph view's stripes agree: the shallowest depth at which any of the trees has `min_modules`
// modules or more, else the deepest depth of them all (0 without modules).
std::uint32_t layer_depth(std::span<const ModuleTree* const> trees, std::size_t min_modules = 6);

enum class GroupBy : std::uint8_t { Role, Module };
std::string_view to_string(GroupBy by); // "role", "module"
bool parse_group_by(std::string_view text, GroupBy& out);

// Roles and owner modules of the storages of one graph, and the live set grouped by them.
// Owner module of a storage, the first rule that applies:
//   1. a parameter or buffer whose label is a qualified name ("blocks.0.attn.qkv.weight"): the
//      nearest tree module of the label minus its last component ("blocks.0.attn.qkv"); optimizer
//      state ("blocks.0.attn.qkv.weight exp_avg"): its parameter's;
//   2. its allocator in this graph (the first node holding it) computes it: that node's module;
//   3. this graph receives it through a placeholder and another graph computes it (a saved
//      activation in the backward): the producer's module, looked up in this tree by name
//      (ModuleTree::nearest);
//   4. the allocator's module (a placeholder: usually none, so the root); the root for storages
//      this graph never holds.
class Attribution {
public:
    struct Group {
        std::string key;      // role name, or module name ("" = root)
        std::uint32_t id = 0; // StorageRole value, or tree index
        std::int64_t bytes = 0;
        std::uint32_t storages = 0;
    };
    // Inclusive totals per tree module (a module counts its descendants' storages).
    struct ModuleTotals {
        std::vector<std::int64_t> bytes;     // per tree index
        std::vector<std::uint32_t> storages; // per tree index
    };

    // O(N + S + modules). `roles` from resolve_roles(file).
    Attribution(const GraphFile& file, GraphId graph, const RoleAssignment& roles);

    const ModuleTree& tree() const { return tree_; }
    StorageRole role(StorageId s) const { return role_[s.index()]; }
    std::uint32_t owner(StorageId s) const { return owner_[s.index()]; } // tree index

    // The live set (LiveSetIndex::live_at) grouped: non-empty groups only (a group of zero-byte
    // storages is listed), sorted by bytes descending, then key. bytes add up to the live total.
    // O(live) for roles, O(live * depth + live log live) for modules.
    std::vector<Group> by_role(std::span<const LiveStorage> live) const;
    std::vector<Group> by_module(std::span<const LiveStorage> live, std::uint32_t depth) const;
    std::vector<Group> breakdown(std::span<const LiveStorage> live, GroupBy by, std::uint32_t depth) const {
        return by == GroupBy::Role ? by_role(live) : by_module(live, depth);
    }
    // For the expandable module tree: O(modules + live * depth).
    ModuleTotals module_totals(std::span<const LiveStorage> live) const;

    // Per StorageId group ids for LiveSetIndex::profile_by: by role, the StorageRole value
    // (kStorageRoleCount groups); by module, the owner's ancestor at `depth` (tree().size() groups).
    std::vector<std::uint32_t> storage_groups(GroupBy by, std::uint32_t depth) const;
    std::size_t group_count(GroupBy by) const { return by == GroupBy::Role ? kStorageRoleCount : tree_.size(); }
    // The key of a group id: role name or module name.
    std::string_view group_key(GroupBy by, std::uint32_t id) const;

private:
    ModuleTree tree_;
    std::vector<StorageRole> role_;    // per StorageId
    std::vector<std::uint32_t> owner_; // per StorageId: tree index
};

// A stacked timeline ready to draw: one band per non-empty group (the one folding rule; the app's
// timeline only colours these bands). By role, the bands run bottom to top parameter, buffer,
// input, activation, output, tangent, gradient, temporary, unknown (fixed colours, a stable
// legend); `keep_empty` keeps the roles that are zero throughout (two halves of a pair then join
// in order). By module, the groups at `depth` by their peak bytes, descending; past `max_bands`
// groups the first max_bands - 1 keep a band each and the rest fold:
//  - a repeated layer (a module named <parent>.<N>, N decimal) folds with its siblings of
//    consecutive N that fold too, into one band "<parent>.<first>–<last>" (id kLayerRangeBand),
//    so a deep model's layers stay on screen as ranges rather than in one band holding most of
//    the memory;
//  - the rest fold into one last band "other" (id kOtherBand).
// At every step the bands add up to index.profile() exactly. O(P * groups + S) once per order.
inline constexpr std::uint32_t kOtherBand = 0xffffffffu;
inline constexpr std::uint32_t kLayerRangeBand = 0xfffffffeu;
struct StackedProfile {
    struct Band {
        std::string key;          // role name, module name ("" = root), "blocks.8–31", or "other"
        std::uint32_t id = 0;     // StorageRole value, tree index, kLayerRangeBand or kOtherBand
        std::int64_t peak = 0;    // the band's largest value over the steps
        std::uint32_t groups = 1; // how many roles or modules it holds
    };
    std::vector<Band> bands;
    std::size_t steps = 0;           // index.profile_size()
    std::vector<std::int64_t> bytes; // row-major: bytes[step * bands.size() + band]
    static constexpr std::uint32_t npos = 0xffffffffu;
    std::vector<std::uint32_t> band_of; // per group id (role or tree index): its band, npos when empty
    std::int64_t at(std::size_t step, std::size_t band) const { return bytes[step * bands.size() + band]; }
};
StackedProfile stacked_profile(const LiveSetIndex& index, const Attribution& attribution, GroupBy by,
                               std::uint32_t depth, std::size_t max_bands = 9, bool keep_empty = false);

} // namespace fxmem
