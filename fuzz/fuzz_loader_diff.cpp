// Differential libFuzzer target: the loader's fast tokenizer (core/src/io/json_fast_sax.h) against nlohmann's
// path. Whenever the fast path loads a text, nlohmann must load it too, into the same file (compared
// through to_json); the fast path may decline or fail, and then load_buffer uses nlohmann anyway.
#include "fxmem/error.h"
#include "fxmem/io.h"
#include "io/load_paths.h"

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::optional<fxmem::GraphFile> fast;
    try {
        fast = fxmem::load_buffer_fast(text, "fuzz", {});
    } catch (const fxmem::Error&) {
        return 0;
    }
    if (!fast) return 0;
    std::string reference;
    try {
        reference = fxmem::to_json(fxmem::load_buffer_nlohmann(text, "fuzz", {}));
    } catch (const fxmem::Error&) {
        std::abort(); // the fast path accepted what nlohmann rejects
    }
    if (fxmem::to_json(*fast) != reference) std::abort();
    return 0;
}
