#include "panels/findbar.h"

#include "state/viewstate.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QSet>
#include <QTimer>
#include <QToolButton>

#include <algorithm>
#include <cctype>

bool containsIgnoringCase(std::string_view hay, std::string_view lowerNeedle) {
    return std::search(hay.begin(), hay.end(), lowerNeedle.begin(), lowerNeedle.end(),
                       [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; }) != hay.end();
}

FindBar::FindBar(ViewState* state, QWidget* parent) : QWidget(parent), state_(state) {
    auto* fl = new QHBoxLayout(this);
    fl->setContentsMargins(8, 2, 8, 2);
    edit_ = new QLineEdit;
    edit_->setPlaceholderText(
        tr("Find modules and nodes by name or target (Enter: next, Shift+Enter: previous, Esc: close)"));
    edit_->setClearButtonEnabled(true);
    edit_->setMinimumWidth(120);
    edit_->installEventFilter(this);
    count_ = new QLabel;
    auto* close = new QToolButton;
    close->setText(QStringLiteral("✕"));
    close->setAutoRaise(true);
    close->setToolTip(tr("Close (Esc)"));
    fl->addWidget(new QLabel(tr("Find")));
    fl->addWidget(edit_, 1);
    fl->addWidget(count_);
    fl->addWidget(close);
    connect(close, &QToolButton::clicked, this, &FindBar::dismiss);
    timer_ = new QTimer(this);
    timer_->setSingleShot(true);
    timer_->setInterval(250); // debounce typing: a search scans every node
    connect(edit_, &QLineEdit::textChanged, timer_, qOverload<>(&QTimer::start));
    connect(timer_, &QTimer::timeout, this, &FindBar::runSearch);
    connect(state_, &ViewState::sceneChanged, this, [this] {
        if (!edit_->text().isEmpty()) runSearch();
    });
    hide();
}

void FindBar::activate() {
    show();
    edit_->setFocus();
    edit_->selectAll();
}

bool FindBar::eventFilter(QObject* watched, QEvent* event) {
    if (watched == edit_ && event->type() == QEvent::KeyPress) {
        auto* key = static_cast<QKeyEvent*>(event);
        if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) {
            if (timer_->isActive()) {
                timer_->stop();
                runSearch();
            }
            step(key->modifiers() & Qt::ShiftModifier ? -1 : 1);
            return true;
        }
        if (key->key() == Qt::Key_Escape) {
            dismiss();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void FindBar::dismiss() {
    hide();
    timer_->stop();
    edit_->clear();
    matches_.clear();
    moduleMatches_.clear();
    index_ = -1;
    emit matchesChanged(matches_);
    emit dismissed();
}

void FindBar::runSearch() {
    matches_.clear();
    moduleMatches_.clear();
    index_ = -1;
    const QString text = edit_->text().trimmed();
    const auto& scene = state_->scene();
    if (scene && !text.isEmpty()) {
        const std::string needle = text.toLower().toStdString();
        QSet<QString> seen;
        for (std::size_t s = 0; s < scene->segments.size(); ++s) {
            const fxmem::ModuleTree& tree = scene->segments[s].attribution->tree();
            for (std::uint32_t m = 1; m < tree.size(); ++m) { // the model itself is no match
                const QString name = scene->moduleName(s, tree[m].name);
                if (!seen.contains(name) && containsIgnoringCase(name.toStdString(), needle)) {
                    seen.insert(name);
                    moduleMatches_.push_back(name);
                }
            }
        }
        for (std::size_t s = 0; s < scene->segments.size(); ++s) {
            const fxmem::Graph& g = scene->segments[s].analysis->graph();
            for (std::size_t i = 0; i < g.size(); ++i)
                if (containsIgnoringCase(g.nodes[i].name, needle) ||
                    containsIgnoringCase(g.targets[g.nodes[i].target], needle))
                    matches_.push_back({static_cast<int>(s), fxmem::NodeId(static_cast<std::int32_t>(i))});
        }
    }
    const std::size_t nodes = matches_.size(), modules = moduleMatches_.size();
    count_->setText(text.isEmpty()         ? QString()
                    : nodes + modules == 0 ? tr("no match")
                    : modules == 0         ? tr("%L1 matches").arg(nodes)
                                           : tr("%L1 modules, %L2 nodes").arg(modules).arg(nodes));
    emit matchesChanged(matches_);
}

void FindBar::step(int delta) {
    const int modules = static_cast<int>(moduleMatches_.size());
    const int n = modules + static_cast<int>(matches_.size());
    if (n == 0) return;
    index_ = ((index_ < 0 && delta < 0 ? 0 : index_ + delta) % n + n) % n;
    if (index_ < modules) {
        state_->selectModule(moduleMatches_[static_cast<std::size_t>(index_)]);
    } else {
        const NodeRef ref = matches_[static_cast<std::size_t>(index_ - modules)];
        state_->selectNode(ref, true);
        state_->setCursorStep(state_->stepOf(ref));
    }
    count_->setText(tr("%L1 of %L2").arg(index_ + 1).arg(n));
}
