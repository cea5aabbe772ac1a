// libFuzzer target for the loader: any input either loads or throws fxmem::Error (never crashes,
// hangs or leaks), and whatever loads survives a write/read round trip unchanged.
#include "fxmem/error.h"
#include "fxmem/io.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    fxmem::GraphFile file;
    try {
        // A cancel check and a progress callback too, so that their bookkeeping is exercised; a
        // fraction outside [0, 1] is a bug.
        const fxmem::LoadControl control{[] { return false; },
                                         [](double fraction) {
                                             if (!(fraction >= 0.0 && fraction <= 1.0)) std::abort();
                                         }};
        file = fxmem::load_buffer(text, "fuzz", control);
    } catch (const fxmem::Error&) {
        return 0;
    }
    // Not caught: a file we loaded must write and read back; an Error here is a bug.
    const std::string written = fxmem::to_json(file);
    const fxmem::GraphFile again = fxmem::load_buffer(written, "fuzz-round-trip");
    if (fxmem::to_json(again) != written) std::abort();
    return 0;
}
