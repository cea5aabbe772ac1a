// The message of the fxmem::Error a callable throws, or "no error": tests compare messages.
#pragma once
#include "fxmem/error.h"

#include <string>

namespace fxmem_test {

inline std::string error_of(const auto& run) {
    try {
        run();
    } catch (const fxmem::Error& e) {
        return e.what();
    }
    return "no error";
}

} // namespace fxmem_test
