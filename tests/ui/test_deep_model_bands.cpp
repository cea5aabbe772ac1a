// The timeline by module on a deep model: 32 repeated layers must not end in one "other" band that
// holds most of the memory (the llama-style 32-layer model showed blocks.0–7 and "other (28
// modules)" with 232 of 307 MiB). Core's folding keeps the largest eight layers and folds the
// rest into a range, "blocks.8–31"; only what is no layer is "other".
#include "../core/test_attribution_fixture.h"
#include "qtest_registry.h"
#include "timeline/stackedbands.h"

#include <fxmem/attribution.h>

#include <QtTest>

namespace {

// embed (1 MiB) -> blocks.0 .. blocks.31 (4 MiB each, kept to the end as a forward keeps its
// activations) -> head (2 MiB); output(all). Each storage stays live to the end.
std::shared_ptr<const GraphAnalysis> deep(int layers) {
    using namespace fxmem;
    auto f = std::make_shared<GraphFile>();
    f->source = "deep.json";
    constexpr std::int64_t MiB = 1 << 20;
    GraphBuilder b(*f, "forward", GraphKind::Forward);
    std::vector<std::string> names;
    const auto add = [&](const std::string& name, const std::string& input, std::int64_t bytes,
                         const std::string& module) {
        const StorageId s = f->add_storage(static_cast<std::int64_t>(names.size()), "cuda:0", bytes);
        if (input.empty())
            testing::add_in_module(b, *f, name, OpKind::CallFunction, "aten.embedding.default", {}, {s}, module.c_str(),
                                   "M");
        else
            testing::add_in_module(b, *f, name, OpKind::CallFunction, "aten.mm.default", {input}, {s}, module.c_str(),
                                   "M");
        names.push_back(name);
    };
    add("embed", "", MiB, "embed");
    for (int i = 0; i < layers; ++i)
        add("mm_" + std::to_string(i), names.back(), 4 * MiB, "blocks." + std::to_string(i));
    add("head", names.back(), 2 * MiB, "head");
    b.begin_node("output", OpKind::Output, "output");
    for (const std::string& n : names) b.add_input(n);
    b.end_node();
    b.finish();
    return GraphAnalysis::compute(f, fxmem::GraphId(0));
}

} // namespace

class TestDeepModelBands : public QObject {
    Q_OBJECT
private slots:
    void thirtyTwoLayersFoldIntoARangeNotOther();
};

void TestDeepModelBands::thirtyTwoLayersFoldIntoARangeNotOther() {
    const auto a = deep(32);
    const fxmem::Attribution attribution(a->file(), fxmem::GraphId(0), fxmem::resolve_roles(a->file()));
    QCOMPARE(attribution.tree().layer_depth(), 2u); // blocks.N
    const auto bands = StackedBands::byModule(a->live(), attribution, 2);
    QStringList names;
    for (const auto& b : bands) names << b.name;
    qInfo("%s", qPrintable(names.join(QStringLiteral(", "))));
    // Eight layers of their own, the other 24 as one range, then embed and head in "other".
    QCOMPARE(bands.size(), std::size_t(10));
    for (int i = 0; i < 8; ++i) QCOMPARE(bands[static_cast<std::size_t>(i)].name, QStringLiteral("blocks.%1").arg(i));
    QCOMPARE(bands[8].name, QString::fromUtf8("blocks.8\u201331"));
    QVERIFY(bands[9].name.startsWith(QStringLiteral("other (2 modules)")));
    const std::size_t last = a->profile().size() - 1;
    const std::int64_t total = a->profile()[last];
    QCOMPARE(total, std::int64_t(1 + 32 * 4 + 2) << 20);
    QCOMPARE(bands[8].values[last], std::int64_t(24 * 4) << 20);
    // "other" holds what is no layer: 3 of 131 MiB, never most of the memory.
    QCOMPARE(bands[9].values[last], std::int64_t(3) << 20);
    for (std::size_t i = 0; i <= last; ++i) {
        std::int64_t sum = 0;
        for (const auto& b : bands) sum += b.values[i];
        QCOMPARE(sum, a->profile()[i]);
    }
}

FXMEM_QTEST(TestDeepModelBands)
#include "test_deep_model_bands.moc"
