#include "export/profilecsv.h"

#include <fxmem/profile_csv.h>

#include <sstream>

QByteArray profileCsv(const Scene& scene, std::span<const std::int64_t> edited,
                      std::span<const fxmem::NodeId> editedOrder) {
    if (scene.empty() || !scene.timeline) return "step,run,graph,graph_step,node,phase,bytes\n";
    std::ostringstream out;
    const fxmem::ProfileEdit edit{edited, editedOrder};
    fxmem::write_profile_csv(out, *scene.timeline, !edited.empty() && !scene.joined() ? &edit : nullptr);
    const std::string text = out.str();
    return QByteArray(text.data(), static_cast<qsizetype>(text.size()));
}
