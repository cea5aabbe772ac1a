// What users call a symbol: "batch" for a Dynamo source L['x'].size()[0] (or .shape[0]),
// "sequence" for dimension 1, "x dim 2" beyond; two symbols that would get the same word are told
// apart by their input's name ("batch (x)"). A symbol whose source has another form is called by
// its source, one without a source by its name. The app's Sizes bar shows these words, and every
// fxmem-cli option that names a symbol (--vary, --set) takes them beside the name and the source.
//
// Lifetime and threads: pure functions on values; any thread.
#pragma once
#include "fxmem/symbolic.h"

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fxmem {

// One word per symbol, in the symbols' order. O(symbols^2) in the worst case (the ambiguity check).
std::vector<std::string> symbol_words(std::span<const Symbol> symbols);

// The symbol `text` names: by name, else by source, else by word (symbol_words). nullopt when none
// does.
std::optional<std::size_t> find_symbol_by_word(const SymbolicSizes& sizes, std::string_view text);

} // namespace fxmem
