// The three kinds of core's exceptions (fxmem/error.h): a file's error keeps its parts to the
// edge (FileError), a caller's mistake is a PreconditionError and no Error, so a frontend that
// reports bad input never passes a bug off as the user's.
#include "fxmem/dataflow_layout.h"
#include "fxmem/error.h"
#include "fxmem/io.h"
#include "fxmem/whole_step.h"
#include "test_paths.h"

#include <gtest/gtest.h>

#include <type_traits>

using namespace fxmem;

namespace {} // namespace

static_assert(std::is_base_of_v<Error, FileError>);
static_assert(!std::is_base_of_v<Error, PreconditionError>);

// storage_role_unknown.json line 6, column 64 (tests/data/bad/expected.txt says the same message).
TEST(ErrorKinds, AFileErrorKeepsItsParts) {
    const std::string path = kBad + "/storage_role_unknown.json";
    try {
        (void)load_file(path);
        FAIL() << "loaded";
    } catch (const FileError& e) {
        EXPECT_EQ(e.source(), path);
        ASSERT_TRUE(e.position().has_value());
        EXPECT_EQ(e.position()->line, 6u);
        EXPECT_EQ(e.position()->column, 64u);
        EXPECT_EQ(e.place(), "storages[1] (id 1)");
        EXPECT_EQ(e.detail().rfind("unknown role 'weights' (expected parameter, ", 0), 0u) << e.detail();
        EXPECT_EQ(std::string(e.what()), path + ":6:64: storages[1] (id 1): " + e.detail());
    }
}

// A message about the file as a whole has no position and no place.
TEST(ErrorKinds, AWholeFileErrorHasNoPosition) {
    const std::string path = kBad + "/missing_graphs.json";
    try {
        (void)load_file(path);
        FAIL() << "loaded";
    } catch (const FileError& e) {
        EXPECT_FALSE(e.position().has_value());
        EXPECT_EQ(e.place(), "");
        EXPECT_EQ(e.detail(), "missing 'graphs' in the top-level object");
        EXPECT_EQ(std::string(e.what()), path + ": missing 'graphs' in the top-level object");
    }
}

// Asking core for what the caller got wrong: a device mask of another size, a module index past
// the tree, collapsing the root.
TEST(ErrorKinds, ACallersMistakeIsAPreconditionError) {
    const GraphFile file = load_file(kGood + "/diff_step_old.json");
    EXPECT_THROW((void)whole_step(file, StorageMask(file.storages.size() + 1, 1)), PreconditionError);
    DataflowLayout layout(file, GraphId(0), ModuleTree(file.graphs[0]));
    EXPECT_THROW(layout.expand(1000), PreconditionError);
    EXPECT_THROW(layout.collapse(ModuleTree::kRoot), PreconditionError);
    EXPECT_NO_THROW((void)whole_step(file, StorageMask(file.storages.size(), 1)));
}
