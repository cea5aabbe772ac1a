// fxmem-cli budgets and remat (recompute on a joint graph; fxmem/remat.h).
#pragma once
#include "args.h"

#include <iosfwd>

namespace fxmem::cli {

int run_budgets(const Args& args, std::ostream& out);
int run_remat(const Args& args, std::ostream& out);
inline constexpr OptionSpec kBudgetsOptions[] = {{"--json", false}, {"--devices", true}};
inline constexpr OptionSpec kRematOptions[] = {
    {"--graph", true},       {"--max-extra-flops", true}, {"--max-extra-percent", true},
    {"--target-peak", true}, {"--time-limit", true},      {"-o", true},
    {"--plan", true},        {"--json", false},           {"--devices", true},
    {"--set", true}};

} // namespace fxmem::cli
