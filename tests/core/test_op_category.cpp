// Op categories and short op names for the targets the exporter writes.
#include "fxmem/op_category.h"

#include "test_estimator_fixtures.h"

#include <gtest/gtest.h>

using namespace fxmem;

TEST(OpCategory, ExporterTargets) {
    auto cat = [](std::string_view t) { return op_category(OpKind::CallFunction, t); };
    EXPECT_EQ(cat("aten.mm.default"), OpCategory::Matmul);
    EXPECT_EQ(cat("aten.addmm.default"), OpCategory::Matmul);
    EXPECT_EQ(cat("aten.bmm.default"), OpCategory::Matmul);
    EXPECT_EQ(cat("aten._scaled_dot_product_flash_attention.default"), OpCategory::Attention);
    EXPECT_EQ(cat("aten._scaled_dot_product_efficient_attention_backward.default"), OpCategory::Attention);
    EXPECT_EQ(cat("aten.convolution.default"), OpCategory::Convolution);
    EXPECT_EQ(cat("aten.convolution_backward.default"), OpCategory::Convolution);
    EXPECT_EQ(cat("prims.convert_element_type.default"), OpCategory::Elementwise);
    EXPECT_EQ(cat("aten.native_layer_norm.default"), OpCategory::Norm);
    EXPECT_EQ(cat("aten.native_layer_norm_backward.default"), OpCategory::Norm);
    EXPECT_EQ(cat("aten._native_batch_norm_legit_functional.default"), OpCategory::Norm);
    EXPECT_EQ(cat("aten._fused_rms_norm.default"), OpCategory::Norm);
    EXPECT_EQ(cat("_c10d_functional.all_gather_into_tensor.default"), OpCategory::Collective);
    EXPECT_EQ(cat("_c10d_functional.reduce_scatter_tensor.default"), OpCategory::Collective);
    EXPECT_EQ(cat("_c10d_functional.wait_tensor.default"), OpCategory::Wait);
    EXPECT_EQ(cat("operator.getitem"), OpCategory::View);
    EXPECT_EQ(cat("operator.add"), OpCategory::Other);
    EXPECT_EQ(cat("aten.view.default"), OpCategory::View);
    EXPECT_EQ(cat("aten.t.default"), OpCategory::View);
    EXPECT_EQ(cat("aten._unsafe_view.default"), OpCategory::View);
    EXPECT_EQ(cat("aten.add.Tensor"), OpCategory::Elementwise);
    EXPECT_EQ(cat("aten.add_.Tensor"), OpCategory::Elementwise); // in place
    EXPECT_EQ(cat("aten.gelu_backward.default"), OpCategory::Elementwise);
    EXPECT_EQ(cat("aten.threshold_backward.default"), OpCategory::Elementwise);
    EXPECT_EQ(cat("aten.sum.dim_IntList"), OpCategory::Reduction);
    EXPECT_EQ(cat("aten._softmax.default"), OpCategory::Reduction);
    EXPECT_EQ(cat("aten._log_softmax_backward_data.default"), OpCategory::Reduction);
    EXPECT_EQ(cat("aten.max_pool2d_with_indices_backward.default"), OpCategory::Reduction);
    EXPECT_EQ(cat("aten.clone.default"), OpCategory::Copy);
    EXPECT_EQ(cat("aten._to_copy.default"), OpCategory::Copy);
    EXPECT_EQ(cat("aten.copy_.default"), OpCategory::Copy);
    EXPECT_EQ(cat("aten.cat.default"), OpCategory::Copy);
    EXPECT_EQ(cat("aten.embedding.default"), OpCategory::Indexing);
    EXPECT_EQ(cat("aten.embedding_dense_backward.default"), OpCategory::Indexing);
    EXPECT_EQ(cat("aten.slice_scatter.default"), OpCategory::Indexing);
    EXPECT_EQ(cat("aten.zeros.default"), OpCategory::Creation);
    EXPECT_EQ(cat("aten.new_empty_strided.default"), OpCategory::Creation);
    EXPECT_EQ(cat("aten.native_dropout.default"), OpCategory::Random);
    EXPECT_EQ(cat("prims.inductor_random.default"), OpCategory::Random);
    EXPECT_EQ(cat("torch.ops.aten.mm.default"), OpCategory::Matmul);
    EXPECT_EQ(cat("mylib.custom_op.default"), OpCategory::Other);
    EXPECT_EQ(cat(""), OpCategory::Other);
    EXPECT_EQ(op_category(OpKind::Placeholder, "primals_1"), OpCategory::Input);
    EXPECT_EQ(op_category(OpKind::GetAttr, "weight"), OpCategory::Input);
    EXPECT_EQ(op_category(OpKind::Output, "output"), OpCategory::Output);
    EXPECT_EQ(op_category(OpKind::CallModule, "layers.0"), OpCategory::Other);
    EXPECT_EQ(op_category(OpKind::CallMethod, "view"), OpCategory::View);
}

TEST(OpCategory, ShortNames) {
    EXPECT_EQ(short_op("aten.mm.default"), "mm");
    EXPECT_EQ(short_op("aten._scaled_dot_product_flash_attention.default"), "_scaled_dot_product_flash_attention");
    EXPECT_EQ(short_op("_c10d_functional.all_gather_into_tensor.default"), "all_gather_into_tensor");
    EXPECT_EQ(short_op("operator.getitem"), "getitem");
    EXPECT_EQ(short_op("torch.ops.aten.add.Tensor"), "add");
    EXPECT_EQ(short_op("torch.nn.functional.relu"), "relu");
    EXPECT_EQ(short_op("primals_1"), "primals_1");
    EXPECT_EQ(short_op(""), "");
    EXPECT_EQ(short_op("a..b"), "");
    EXPECT_EQ(short_op("x."), "");
}

TEST(OpCategory, NamesAndPerTargetTable) {
    EXPECT_EQ(to_string(OpCategory::Matmul), "matmul");
    EXPECT_EQ(to_string(OpCategory::Wait), "wait");
    EXPECT_EQ(to_string(OpCategory::Other), "other");
    EXPECT_EQ(to_string(static_cast<OpCategory>(kOpCategoryCount - 1)), "other");
    fxmem::testing::G1 t; // targets: primals_1, x, aten.add, aten.view, weight, aten.mm, ...
    const std::vector<OpCategory> by_target = target_categories(*t.graph);
    ASSERT_EQ(by_target.size(), t.graph->targets.size());
    EXPECT_EQ(node_category(*t.graph, t.id("primals_1"), by_target), OpCategory::Input);
    EXPECT_EQ(node_category(*t.graph, t.id("w"), by_target), OpCategory::Input);
    EXPECT_EQ(node_category(*t.graph, t.id("a"), by_target), OpCategory::Elementwise);
    EXPECT_EQ(node_category(*t.graph, t.id("v"), by_target), OpCategory::View);
    EXPECT_EQ(node_category(*t.graph, t.id("b"), by_target), OpCategory::Matmul);
    EXPECT_EQ(node_category(*t.graph, t.id("c"), by_target), OpCategory::Copy);
    EXPECT_EQ(node_category(*t.graph, t.id("output"), by_target), OpCategory::Output);
}
