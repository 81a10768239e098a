"""The injected text: facts grouped by kind, most useful first, within a token budget.

Groups, in this order: "Where we left off" (unfinished work), "Commands that work", "Known
problems" (gotchas, errors and their fixes), "Decisions and instructions", "Files", "Also
known" (other concepts and findings), "Earlier sessions". A first pass gives each group up
to its SHARE of the budget, in the order its items come (activation, or strength for the
standing knowledge), so no group crowds out the others; a second pass spends what is left
in the same order. Files whose description says no more than their name share one line, and so
do the paths kept out of commits. An item
that does not fit at its tier is tried at the next lower one (engram.retrieve.tiers), and
names-only items go on one closing "Also in memory" line. Each node appears once; group
headings carry the kind, so lines do not repeat it; the files one failed `rm` left behind
(a node each) share one line. A `mention` (a subagent the user named once,
consolidate/knowledge/user_words.py) is never shown: it only waits to be named again.
"""

from __future__ import annotations

from engram.retrieve import tiers
from engram.text import inert, sets_variable

RUN = "Commands run (exit status not recorded)"
GROUPS = ("Where we left off", "Commands that work", RUN, "Known problems", "Decisions and instructions", "Files",
          "Also known", "Earlier sessions")
# Each group's share of the budget in the first pass, so no group crowds out the others;
# the second pass spends what is left in group order.
SHARE = {"Where we left off": 0.25, "Commands that work": 0.15, RUN: 0.05, "Known problems": 0.2,
         "Decisions and instructions": 0.15, "Files": 0.15, "Also known": 0.05, "Earlier sessions": 0.05}
_BY_KIND = {"unfinished": "Where we left off", "command": "Commands that work", "command_run": RUN,
            "gotcha": "Known problems", "instruction": "Decisions and instructions", "file": "Files"}
_BY_TYPE = {"error": "Known problems", "decision": "Decisions and instructions", "episode": "Earlier sessions"}
# Groups whose items (all, or those of `compact`) share one line.
COMPACT = {"Files": "- Also worked on: ", RUN: "- ", "Known problems": "- Kept out of commits (unstaged, or left untracked): "}
KEPT_OUT = "kept-out:"  # a path the sessions keep out of commits (consolidate/knowledge/nodes.py)


def group_of(node: dict) -> str:
    data = tiers.data_of(node)
    if data.get("kind") == "file" and data.get("rules"):
        return "Decisions and instructions"  # the project's rules for the agent live in that file
    return _BY_KIND.get(data.get("kind")) or _BY_TYPE.get(node.get("type") or "") or "Also known"


def says_more(node: dict) -> bool:
    """A file node whose description says what the file is for (its role), not only its name."""
    role = str(tiers.data_of(node).get("role") or "").strip()
    return bool(role) and not role.casefold().startswith(("package ", "module ")) and len(role.split()) > 1


def compact(group: str, node: dict) -> bool:
    """Whether the node is said by its name alone, on its group's shared line: every command run
    without a status, a file whose description says no more than its name, a path kept out of commits."""
    if group == "Files":
        return not says_more(node)
    if group == "Known problems":
        return str(tiers.data_of(node).get("key") or "").startswith(KEPT_OUT)
    return group in COMPACT


def _compact_name(node: dict) -> str:
    data = tiers.data_of(node)
    key = str(data.get("key") or "")
    return key[len(KEPT_OUT):] if key.startswith(KEPT_OUT) else str(data.get("command") or node.get("name") or "")


class _Budget:
    def __init__(self, budget: int, header: str, low_prefix: str):
        self.total = budget
        self.left = budget - tiers.tokens(header) - 1
        self.low_prefix = low_prefix
        self.lines: dict[str, list[str]] = {g: [] for g in GROUPS}
        self.spent: dict[str, int] = {g: 0 for g in GROUPS}
        self.compact: dict[str, list[str]] = {g: [] for g in COMPACT}  # named only, on one line
        self.low: list[str] = []
        self.shown: list[tuple[str, int]] = []
        self._said: dict[tuple[str, int], str] = {}  # (node id, tier) -> its line: the second pass asks again

    def _line(self, node: dict, level: int) -> str:
        key = (node["id"], level)
        if key not in self._said:
            self._said[key] = tiers.line(node, level, labelled=False)
        return self._said[key]

    def _fits(self, group: str, cost: int, cap: int | None) -> bool:
        return cost <= self.left and (cap is None or self.spent[group] + cost <= cap)

    def _spend(self, group: str, cost: int, cap: int | None) -> bool:
        if not self._fits(group, cost, cap):
            return False
        self.left -= cost
        self.spent[group] += cost
        return True

    def take(self, node: dict, act: float, group: str, capped: bool = False) -> bool:
        """Place the node at its tier, or a lower one that fits; False when nothing fits
        (with `capped`, within the group's share of the budget)."""
        cap = int(SHARE[group] * self.total) if capped else None
        if self.left <= 0 or (cap is not None and self.spent[group] >= cap):
            return False  # full: no line fits, so none is rendered
        heading = 0 if self.lines[group] or self.compact.get(group) else tiers.tokens(group + ":") + 1
        if compact(group, node):
            name = inert(tiers.guarded(node, _compact_name(node)), 160)
            listed = self.compact[group]
            cost = tiers.tokens(f"`{name}`, ") + (0 if listed else tiers.tokens(COMPACT[group]) + heading)
            if self._spend(group, cost, cap):
                listed.append(f"`{name}`")
                self.shown.append((node["id"], tiers.FULL))  # its name is all it will ever show: not again
                return True
            return False
        for level in range(tiers.level(node, act), 0, -1):
            if level == tiers.LOW:
                name = self._line(node, tiers.LOW)
                cost = tiers.tokens(name + "; ") + (0 if self.low else tiers.tokens(self.low_prefix) + 1)
                if self._spend(group, cost, cap):
                    self.low.append(name)
                    self.shown.append((node["id"], level))
                    return True
                return False
            if (node["id"], level) not in self._said and not self._fits(group, tiers.least(node, level) + 1 + heading,
                                                                       cap):
                continue  # not even its files fit: the line would not, so it is not rendered
            text = self._line(node, level)
            if self._spend(group, tiers.tokens(text) + 1 + heading, cap):
                self.lines[group].append(text)
                self.shown.append((node["id"], level))
                return True
        return False

    def text(self, header: str) -> str:
        out = [header]
        for g in GROUPS:
            listed = self.compact.get(g)
            lines = self.lines[g] + ([COMPACT[g] + ", ".join(listed) + "."] if listed else [])
            if lines:
                out += [g + ":"] + lines
        if self.low:
            said = "; ".join(self.low)
            out.append(self.low_prefix + said + ("" if said.endswith((".", "!", "?")) else "."))
        return "\n".join(out)


def _together(paths: list[str]) -> str:
    quoted = [f"`{p}`" for p in paths]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def fold_leftovers(items: list[tuple[dict, float]]) -> tuple[list[tuple[dict, float]], dict[str, list[str]]]:
    """The files one failed `rm` left behind (one node each, so each is retired on its own) as
    one line: the first node speaks for all ("`a` and `b` are still in the working tree: …").
    Returns the items and {id of the node that speaks: [ids of the nodes folded into it]}."""
    lead: dict[tuple[str, str], tuple[int, list[str]]] = {}
    out: list[tuple[dict, float]] = []
    riders: dict[str, list[str]] = {}
    for node, act in items:
        d = tiers.data_of(node)
        key = (str(d.get("command")), str(d.get("error"))) if d.get("kind") == "unfinished" and d.get("path") else None
        if key is not None and key in lead:
            at, paths = lead[key]
            paths.append(str(d["path"]))
            riders.setdefault(out[at][0]["id"], []).append(node["id"])
            paths.sort(key=lambda p: (key[0].find(p), p))  # as the command names them
            desc = f"{_together(paths)} are still in the working tree: `{key[0]}` failed ({key[1]})."
            out[at] = ({**out[at][0], "description": desc}, out[at][1])
            continue
        if key is not None:
            lead[key] = (len(out), [str(d["path"])])
        out.append((node, act))
    return out, riders


def _folder(description: str) -> str:
    """Where a command works, as its description says it ("… (in `services/api`); …",
    consolidate/knowledge/nodes.py); "" for the project's root."""
    at = description.find(" (in `")
    return description[at + 6: description.find("`)", at + 6)] if at >= 0 else ""


def _without_env(words: list[str]) -> list[str]:
    """A command's words without the variables set before it (`PATH="…:$PATH" go build` is a
    form of `go build`)."""
    i = 0
    while i < len(words) and sets_variable(words[i]):
        i += 1
    return words[i:]


def _said_once(items: list[tuple[dict, float]]) -> list[tuple[dict, float]]:
    """A command run with no status recorded (one session) that another session saw work is
    said once, as working: not in both groups; a check failing at the end of a session once,
    where we left off, not again as a known problem; and of the forms of one command that work in
    one folder (`uv run pytest -v`, `uv run pytest -x -q`, `PATH=… uv run pytest`), the first only: the
    others differ in options or the variables set before them, and eight of them left no room for the project's other commands."""
    working = {str(n.get("name")) for n, _ in items if tiers.data_of(n).get("kind") == "command"}
    failing = tuple(f"`{str(tiers.data_of(n).get('key'))[6:]}{end}" for n, _ in items
                    if str(tiers.data_of(n).get("key") or "").startswith("check:") for end in ("`", " "))
    forms: set[tuple[str, str]] = set()
    out = []
    for n, a in items:
        data = tiers.data_of(n)
        if data.get("kind") == "command_run" and str(data.get("command")) in working:
            continue
        if n.get("type") == "error" and failing and str(n.get("name") or "").startswith(failing):
            continue  # "`x` was failing when the session ended" says it
        if data.get("kind") == "command":
            form = (" ".join(sorted(w for w in _without_env(str(n.get("name")).split()) if not w.startswith("-"))),
                    _folder(str(n.get("description") or "")))  # in any order: `xcodebuild build -scheme A`
            if form in forms:
                continue
            forms.add(form)
        out.append((n, a))
    return out


def render(items: list[tuple[dict, float]], budget: int, header: str,
           low_prefix: str = tiers.LOW_PREFIX) -> tuple[str | None, list[tuple[str, int]]]:
    """(text or None, [(node id, tier shown)]) for ranked (node, activation) pairs."""
    b = _Budget(budget, header, low_prefix)
    seen: set[str] = set()
    items = [it for it in items if not (it[0]["id"] in seen or seen.add(it[0]["id"]))  # type: ignore[func-returns-value]
             and tiers.data_of(it[0]).get("kind") != "mention"]  # a subagent named once: bookkeeping, not a rule
    items, riders = fold_leftovers(_said_once(items))
    rest = []
    for node, act in items:
        g = group_of(node)
        if not b.take(node, act, g, capped=True):
            rest.append((node, act, g))
    placed = {nid for nid, _ in b.shown}
    for node, act, g in rest:
        if node["id"] not in placed and b.take(node, act, g):
            placed.add(node["id"])
    if not b.shown:
        return None, []
    shown = [(i, level) for nid, level in b.shown for i in [nid, *riders.get(nid, [])]]
    return b.text(header), shown
