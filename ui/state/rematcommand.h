// One undoable Recompute/Save edit: redo shows the edited pair, undo the pair shown before it
// (the very file and pair index, so the views get back the exact pair).
#pragma once
#include <fxmem/model.h>

#include <QUndoCommand>

#include <functional>
#include <memory>

class RematCommand : public QUndoCommand {
public:
    using Show = std::function<void(const std::shared_ptr<const fxmem::GraphFile>& file, int pair)>;
    struct Target {
        std::shared_ptr<const fxmem::GraphFile> file;
        int pair = -1;
    };
    RematCommand(Show show, Target before, Target after, const QString& text)
        : QUndoCommand(text), show_(std::move(show)), before_(std::move(before)), after_(std::move(after)) {}
    void undo() override { show_(before_.file, before_.pair); }
    void redo() override { show_(after_.file, after_.pair); }

private:
    Show show_;
    Target before_, after_;
};
