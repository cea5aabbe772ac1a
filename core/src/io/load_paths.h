// The reader's two paths taken one at a time (load_buffer runs the fast one and falls back to
// nlohmann's), for the tests and the fuzzer that check they agree. Not part of the public API.
#pragma once
#include "fxmem/io.h"

#include <optional>
#include <string>
#include <string_view>

namespace fxmem {

// nullopt where the fast tokenizer declines the text (or finds an error: nlohmann's path words it).
std::optional<GraphFile> load_buffer_fast(std::string_view json, std::string source, const LoadControl& control = {});
GraphFile load_buffer_nlohmann(std::string_view json, std::string source, const LoadControl& control = {});

} // namespace fxmem
