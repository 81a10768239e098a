"""The knowledge records of a session as graph node proposals, and the keys they retire.

Every proposal carries `data.kind` (command / gotcha / unfinished / instruction / mention) and,
when it names one fact across sessions, a `data.key` (a gotcha of a failing command is merged by
its name instead); graph_apply lets a node replace the active nodes of its key and closes the
`retire` keys. Unfinished items are computed over the whole session so far (`prior` +
`events`): what matters is the state the session ends in. Commands, gotchas and
instructions come from the range alone, so a rerun over the same events and the same
`known` proposes the same nodes (consolidation is deterministic for identical input).
"""

from __future__ import annotations

from typing import Any

from engram import jsonio
from engram.capture import commandline as cl
from engram.consolidate.knowledge import commands, environment, tool_errors, unfinished, user_words
from engram.consolidate.schema import KEY_MAX
from engram.hashing import sha256_hex
from engram.text import clip_words, short_paths

PURPOSES = {"test": "runs the tests", "build": "builds the project", "lint": "checks the code (lint / types)",
            "format": "formats or checks formatting", "setup": "installs the dependencies", "run": "runs a project task"}
Proposal = dict[str, Any]


def _node(prefix: str, name: str, type: str, description: str, data: dict[str, Any], evidence: list[int],
          **extra: Any) -> Proposal:
    return {"prefix": prefix, "name": name, "type": type, "description": description, "data": data,
            "evidence": evidence, **extra}


def command_nodes(events: list[dict[str, Any]], root: str = "") -> tuple[list[Proposal], list[dict[str, Any]]]:
    """Commands that work (with the folder they ran in, inside the project at `root`), commands
    run with no status recorded, and the keys of the commands they replace."""
    working = commands.project_commands(events, root)
    out = []
    for canon, rec in working.items():
        where = f" (in `{rec['folder']}`)" if rec["folder"] else ""
        desc = f"`{canon}` {PURPOSES[rec['purpose']]}{where}; last worked {rec['last_ts']}."
        if rec["example"]:
            desc += f" Narrower: `{rec['example']}`."
        out.append(_node("c", canon, "concept", desc, {"kind": "command", "key": "command:" + canon,
                                                       "purpose": rec["purpose"], "last_ok": rec["last_ts"]},
                         rec["evidence"], op="update"))  # its newer run says when it last worked
    retire = [{"key": "command:" + old, "by": "command:" + new, "reason": f"`{old}` failed; `{new}` worked"}
              for old, new in commands.retired_commands(events, working).items()]
    retire += [{"key": "command-run:" + canon, "by": "command:" + canon, "reason": "seen working"} for canon in working]
    for canon, rec in commands.commands_run(events, working).items():
        desc = f"`{canon}` ({rec['purpose']}) ran {rec['runs']} time(s); no exit status was recorded."
        out.append(_node("c", f"{canon} (exit status not recorded)", "concept", desc,
                         {"kind": "command_run", "key": "command-run:" + canon, "purpose": rec["purpose"],
                          "command": canon},
                         rec["evidence"], op="update"))
    return out, retire


def gotcha_nodes(events: list[dict[str, Any]], carried: set[str] = frozenset()) -> list[Proposal]:
    """Gotchas and paths kept out of commits; `carried`: errors an unfinished item already says
    (a blocked `rm` is its leftover files' line, not a second known problem)."""
    out = []
    found = commands.gotchas(events)
    for g in found:
        if g["error"] in carried:
            continue
        desc = f"`{clip_words(g['command'], 120)}` fails: {g['error']}"
        if g["worked"]:
            desc += f"; `{clip_words(g['worked'], 120)}` " + (
                "worked instead." if g["observed"] else "ran next with no error shown (its exit status not recorded).")
        else:
            desc += f" (seen {g['times']} times, no working variant yet)."
        # A failure of the shell itself (a parse error, a refused option) is one gotcha whatever
        # the command: named by its error, so each session's meeting reinforces the same node.
        said = short_paths(g["error"])
        name = clip_words(f"Shell: {said}" if g["shell"] else f"{g['command']} fails: {said}", 80)
        data = {"kind": "gotcha", "family": cl.family_key(g["command"]), "error_key": cl.error_key(g["error"]),
                "worked": clip_words(g["worked"], 200), "times": g["times"]}
        out.append(_node("g", name, "error", desc, data, g["evidence"]))
    for m in environment.missing_programs(events, {seq for g in found for seq in g["evidence"]}):
        where = "where it was run" if "/" in m["program"] else "on this machine"  # a script by its path
        desc = f"`{m['program']}` is not found {where}: `{m['command']}` failed with \"{m['error']}\"" + (
            f" ({m['times']} times)." if m["times"] > 1 else ".")
        out.append(_node("g", f"{m['program']} is not found {where}", "error", desc,
                         {"kind": "gotcha", "key": "missing:" + m["program"], "times": m["times"]},
                         m["evidence"], op="update"))
    for r in environment.refused_options(events, {seq for g in found for seq in g["evidence"]}):
        said = f"{r['program']} {r['option']}"
        desc = f"`{r['program']}` on this machine does not take `{r['option']}`: `{r['command']}` failed with " \
               f"\"{r['error']}\"" + (f" ({r['times']} times)." if r["times"] > 1 else ".")
        out.append(_node("g", f"{said} is refused on this machine", "error", desc,
                         {"kind": "gotcha", "key": "refused:" + said, "times": r["times"]}, r["evidence"], op="update"))
    for g in tool_errors.gotchas(events):
        name, desc = tool_errors.describe(g)
        out.append(_node("g", name, "error", desc, {"kind": "gotcha", "tool": g["tool"], "times": g["times"]},
                         g["evidence"]))
    for g in tool_errors.search_gaps(events):
        name, desc = tool_errors.describe_gap(g)
        out.append(_node("g", name, "finding", desc, {"kind": "gotcha", "tool": g["tool"]}, g["evidence"]))
    for k in commands.kept_out_of_commits(events):
        desc = f"`{k['path']}` is kept out of commits: after `git add` it was unstaged with `{k['command']}`."
        out.append(_node("g", f"{k['path']} is kept out of commits", "finding", desc,
                         {"kind": "gotcha", "key": "kept-out:" + k["path"]}, k["evidence"], confidence=0.6))
    for k in commands.left_untracked(events):
        desc = f"`{k['path']}` stays untracked: the session committed without it (`{k['command']}`)."
        out.append(_node("g", f"{k['path']} is kept out of commits", "finding", desc,
                         {"kind": "gotcha", "key": "kept-out:" + k["path"]}, k["evidence"], confidence=0.6))
    return out


def _unfinished(name: str, desc: str, key: str, evidence: list[int]) -> Proposal:
    return _node("u", name, "finding", desc, {"kind": "unfinished", "key": key}, evidence, confidence=0.9,
                 op="update")  # the item's newer state replaces its description


def unfinished_nodes(session: list[dict[str, Any]], said: set[str] = frozenset()
                     ) -> tuple[list[Proposal], list[dict[str, Any]]]:
    """Open work at the end of the session, and the keys its later events closed; `said`: the
    instructions' sentences, which the last session's requests do not repeat."""
    out, retire = [], []
    failing, passing = unfinished.checks(session)
    for f in failing:
        out.append(_unfinished(f"Failing at the end: {f['command']}", f"`{f['command']}` was failing when the "
                               f"session ended: {f['what'].rstrip('.')}.", f["key"], f["evidence"]))
    todo, had_list = unfinished.todos(session)
    if todo:
        out.append(_unfinished("Open items of the agent's task list", f"Open in the agent's task list: {todo['text']}.",
                               "todos", todo["evidence"]))
    opened, closed = unfinished.pull_requests(session, project_root(session))
    for pr in opened:
        where = f" from branch {pr['branch']}" if pr["branch"] else ""
        title = f": {pr['title']}" if pr["title"] else ""
        ref = pr["number"] if "#" in pr["number"] else "#" + pr["number"]  # another repository's: owner/name#N
        node = _unfinished(f"PR {ref} open", f"PR {ref} was opened{where}{title}; "
                           f"not seen merged or closed since.", pr["key"], pr["evidence"])
        if pr["alias"]:
            node["data"]["alias"] = pr["alias"]
        out.append(node)
    filed, shut = unfinished.issues(session, project_root(session))
    for i in filed:
        title = f": {i['title']}" if i["title"] else ""
        ref = i["number"] if "#" in i["number"] else "#" + i["number"]
        out.append(_unfinished(f"Issue {ref} open", f"Issue {ref} was filed{title}; not seen "
                               f"closed since.", i["key"], i["evidence"]))
    pending, committed = unfinished.uncommitted(session)
    if pending:
        more = f" and {pending['more']} more" if pending["more"] else ""
        out.append(_unfinished("Changes left uncommitted", "Written after the session's last commit, not committed "
                               f"in it: {', '.join('`' + f + '`' for f in pending['files'])}{more}.",
                               pending["key"], pending["evidence"]))
    elif committed:
        retire.append({"key": "uncommitted", "by": None, "reason": "committed"})
    waiting, pushed = unfinished.unpushed(session)
    for b in waiting:
        out.append(_unfinished(f"Branch {b['branch']} not pushed", f"Branch `{b['branch']}` has commits not seen "
                               f"pushed (last: `{b['sha']}` {b['message']}).", b["key"], b["evidence"]))
    retire += [{"key": k, "by": None, "reason": "pushed"} for k in pushed]
    state = unfinished.last_session(session, said)
    last = unfinished.last_request(session)
    if state:
        unanswered = last["text"][:60] if last and not last["replied"] else None  # said on its own line below
        asked = "; ".join(f'"{a}"' for a in state["asked"] if a[:60] != unanswered)
        desc = (f"Last session ({state['ts']}) asked: {asked}." if asked else f"Last session ({state['ts']}).") + (
            f" Its last reply: \"{state['ended']}\"" if state["ended"] else "")
        out.append(_unfinished("The last session", desc, state["key"], state["evidence"]))
    left, removed = unfinished.leftovers(session)
    for f in left:  # one node per file (its own key); SessionStart shows one rm's files on one line
        node = _unfinished(f"Left in the working tree: {f['path']}", f"`{f['path']}` is still in the working "
                           f"tree: `{f['command']}` failed ({f['error']}).", f["key"], f["evidence"])
        node["data"].update(path=f["path"], command=f["command"], error=f["error"])
        out.append(node)
    if last and not last["replied"]:
        desc = f"Last request of the session of {last['ts']}, with no reply recorded: \"{last['text']}\"."
        out.append(_unfinished("Last request of the previous session", desc, "last-request", last["evidence"]))
    elif last:
        retire.append({"key": "last-request", "by": None, "reason": "the last request was answered"})
    retire += [{"key": k, "by": None, "reason": "the check passed"} for k in passing]
    retire += [{"key": k, "by": None, "reason": "merged, closed, or its branch deleted"} for k in closed]
    retire += [{"key": k, "by": None, "reason": "closed"} for k in shut]
    retire += [{"key": k, "by": None, "reason": "removed"} for k in removed]
    if had_list and not todo:
        retire.append({"key": "todos", "by": None, "reason": "every item of the task list was done"})
    return out, retire


def named_before(known: list[str]) -> dict[str, str]:
    """{subagent (casefolded "@agent-x"): "mention" or "instruction"} for the agents the graph
    holds a node of, from the worker's `known` lines ({"name", "type"}: the type is the kind)."""
    out = {}
    for line in known:
        try:
            k = jsonio.loads(line)
        except ValueError:
            continue
        name = str(k.get("name") or "") if isinstance(k, dict) else ""
        if k.get("type") in ("mention", "instruction") and name.startswith("Use @agent-"):
            out[name[len("Use "):].casefold()] = k["type"]
    return out


def instruction_nodes(events: list[dict[str, Any]], earlier: dict[str, str] | None = None) -> list[Proposal]:
    """The user's instructions, and the subagents they named (a `mention` until named again in
    a later session; named again, it becomes an instruction in the words that promoted it)."""
    earlier = earlier or {}
    out = []
    for i in user_words.instructions(events, set(earlier)):
        name = f"Use {i['name']}" if i["agent"] else i["name"]
        promoted = i["agent"] and i["kind"] == "instruction" and earlier.get(i["name"].casefold()) == "mention"
        extra = {"op": "update"} if promoted else {}
        out.append(_node("i", name, "decision", i["text"], {"kind": i["kind"], "source": "user",
                                                            **({"requires": [], "forbids": []} if i["agent"] else {})},
                         i["evidence"], explicit=i["explicit"], rationale="", alternatives=[], **extra))
    return out


def project_root(events: list[dict[str, Any]]) -> str:
    """The folder the session started in (its SessionStart's cwd), "" when not seen."""
    return next((str(e["cwd"]) for e in events if e.get("type") == "session_start" and e.get("cwd")), "")


def proposals(events: list[dict[str, Any]], prior: list[dict[str, Any]],
              known: list[str] = ()) -> tuple[list[Proposal], list[dict[str, Any]]]:
    """(node proposals, retire entries) for a range of events, `prior` = the session before it,
    `known` = what the graph holds (consolidate/worker.known_nodes)."""
    cmds, retire = command_nodes(events, project_root(prior + events))
    rules = instruction_nodes(events, _earlier(prior, known))
    todo, closed = unfinished_nodes(prior + events, {n["description"] for n in rules}
                                    | {i["text"] for i in user_words.instructions(prior)})
    carried = {n["data"]["error"] for n in todo if n["data"].get("error")}
    # last: the bound on retire entries cuts these first (a program that ran closes a fact
    # only if one was recorded)
    ran = [{"key": "missing:" + prog, "by": None, "reason": f"`{prog}` ran"}
           for prog in sorted(environment.found_programs(events))]
    ran += [{"key": f"refused:{prog} {opt}", "by": None, "reason": f"`{prog} {opt}` ran"}
            for prog, opt in sorted(environment.options_that_ran(events))]
    found = [{**p, "data": {**p["data"], "key": bounded_key(p["data"]["key"])}} if "key" in p["data"] else p
             for p in cmds + gotcha_nodes(events, carried) + todo + rules]
    return found, [{**r, "key": bounded_key(r["key"]), "by": r["by"] and bounded_key(r["by"])}
                   for r in retire + closed + ran]


def bounded_key(key: str) -> str:
    """`key` within the change request's bound: a longer one (a 500-character command line)
    keeps its start and a digest of the whole, so each still names one fact, the same every
    session, and no session fails as invalid over it."""
    return key if len(key) <= KEY_MAX else key[:KEY_MAX - 13] + "#" + sha256_hex(key)[:12]


def _earlier(prior: list[dict[str, Any]], known: list[str]) -> dict[str, str]:
    this_session = user_words.agents_named(prior)  # the graph's node of these may be this session's own
    return {k: v for k, v in named_before(list(known)).items() if k not in this_session}
