// capture_info: the producer's target keys, and files that do not have them.
#include "fxmem/capture_info.h"
#include "fxmem/io.h"

#include <gtest/gtest.h>

namespace fxmem {
namespace {

GraphFile with_producer(std::string producer_json) {
    GraphFile f;
    f.producer_json = std::move(producer_json);
    return f;
}

TEST(CaptureInfo, ReadsTheTargetKeys) {
    const CaptureInfo info = capture_info(
        with_producer(R"({"capture": "torch.compile backend", "inner": "partition", "target": "cpu", "sdpa": "math",
                          "autocast": "bfloat16"})"));
    EXPECT_EQ(info.target, "cpu");
    EXPECT_EQ(info.sdpa, "math");
    EXPECT_EQ(info.autocast, "bfloat16");
    EXPECT_EQ(info.inner, "partition");
    EXPECT_EQ(info.summary(), "target cpu, sdpa math, autocast bfloat16");
}

TEST(CaptureInfo, OlderAndForeignProducersSayNothing) {
    EXPECT_EQ(capture_info(GraphFile{}).summary(), "");
    EXPECT_EQ(capture_info(with_producer(R"({"device": "meta"})")).summary(), "");
    const CaptureInfo odd = capture_info(with_producer(R"({"target": 3, "sdpa": ["flash"]})"));
    EXPECT_EQ(odd.target, "");
    EXPECT_EQ(odd.sdpa, "");
    EXPECT_EQ(capture_info(with_producer("[1, 2]")).target, "");
    EXPECT_EQ(capture_info(with_producer(R"({"target": "cuda"})")).summary(), "target cuda");
}

} // namespace
} // namespace fxmem

#include "cli_run.h"

namespace fxmem {
namespace {

// `fxmem-cli info` names the target a file was captured for, in text and JSON; a file without
// one (written before targets, or by another tool) shows neither.
TEST(CaptureInfo, InfoShowsTheTarget) {
    using namespace fxmem_test;
    const std::string single = std::string(FXMEM_TEST_DATA) + "/good/single.json";
    const std::string text = slurp(single);
    const std::string with_target = scratch_dir() + "/target.json";
    write(with_target, replace_all(text, R"("producer": {)", R"("producer": {"target": "cpu", "sdpa": "math", )"));

    const CliRun plain = cli({"info", single});
    ASSERT_EQ(plain.status, 0) << plain.err;
    EXPECT_FALSE(contains(plain.out, "captured for"));
    EXPECT_FALSE(cli({"info", single, "--json"}).json().contains("target"));

    const CliRun run = cli({"info", with_target});
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_TRUE(contains(run.out, "captured for: target cpu, sdpa math\n")) << run.out;
    const nlohmann::json j = cli({"info", with_target, "--json"}).json();
    EXPECT_EQ(j["target"], "cpu");
    EXPECT_EQ(j["sdpa"], "math");
    EXPECT_FALSE(j.contains("autocast"));
}

} // namespace
} // namespace fxmem
