"""`engram view`'s page: one self-contained HTML file of a project's memory.

Knowledge by kind with its evidence and payoff, the sessions timeline, what each session
was shown and what it used, and the model-call ledger. Inline CSS, no script, no image,
no font, no link that loads anything: the page opens from disk in any browser, offline,
and shows the same thing everywhere. Every value is escaped (`html.escape`): item texts
come from tool output and must not become markup.
"""

from __future__ import annotations

import html
from typing import Any

CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#1d2330;background:#fbfbfd}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #d8dbe3;padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px;color:#36415a}.meta{color:#5b6478}
table{border-collapse:collapse;width:100%;margin:4px 0 12px;background:#fff}
th,td{border:1px solid #e1e4ec;padding:5px 8px;text-align:left;vertical-align:top}
th{background:#eef1f7;font-weight:600}td.num{text-align:right;white-space:nowrap}
.tag{display:inline-block;padding:0 6px;border-radius:8px;font-size:12px;margin-right:4px}
.pinned{background:#ffe9a8}.faded{background:#e5e5e5}.expired{background:#ffd0d0}.holds{background:#d6f5dc}
.used{color:#16794a;font-weight:600}.unused{color:#8a93a6}code{background:#f1f3f8;padding:0 3px;border-radius:3px}
.payoff{font-size:16px;background:#eef6ff;border:1px solid #c9defa;padding:8px 12px;border-radius:6px;display:inline-block}
"""


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _table(head: list[str], rows: list[list[str]], empty: str) -> str:
    if not rows:
        return f'<p class="meta">{_e(empty)}</p>'
    th = "".join(f"<th>{_e(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(rows_cell for rows_cell in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def _td(value: Any, cls: str = "") -> str:
    return f'<td class="{cls}">{_e(value)}</td>' if cls else f"<td>{_e(value)}</td>"


def _tags(item: dict[str, Any]) -> str:
    tags = [("pinned", "pinned")] if item["pinned"] else []
    tags += [("faded", "faded")] if item["faded"] else []
    holds = item["evidence"].get("holds")
    tags += [("expired", "evidence gone")] if holds is False else [("holds", "evidence holds")] if holds else []
    return "".join(f'<span class="tag {c}">{_e(t)}</span>' for c, t in tags)


def knowledge(items: list[dict[str, Any]]) -> str:
    kinds: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        kinds.setdefault(item["kind"], []).append(item)
    out = ["<h2>Knowledge by kind</h2>"]
    if not kinds:
        out.append('<p class="meta">Nothing learnt yet.</p>')
    for kind in sorted(kinds, key=lambda k: (-len(kinds[k]), k)):
        rows = []
        for it in kinds[kind]:
            ev = it["evidence"]
            said = "; ".join(ev["needs"]) or "nothing of the files"
            where = f"session {ev['session']}, events {ev['seqs']}" if ev.get("session") else "not recorded"
            broken = f" — gone: {ev['broken']}" if ev.get("broken") else ""
            rows.append(['<td>' + _tags(it) + f"<b>{_e(it['name'])}</b><br>{_e(it['text'])}</td>",
                         _td(f"{it['strength']:.2f}", "num"),
                         _td(f"{it['used']} / {it['injected']}", "num"), _td(it["last_used"] or "never"),
                         _td(f"{where}; needs {said}{broken}"), _td(it["id"])])
        out.append(f"<h3>{_e(kind)} ({len(rows)})</h3>")
        out.append(_table(["item", "strength", "used / injected", "last used", "evidence", "id"], rows, ""))
    return "\n".join(out)


def timeline(episodes: list[dict[str, Any]], payoff: dict[str, dict[str, Any]]) -> str:
    rows = []
    for ep in episodes:
        data = ep.get("data") if isinstance(ep.get("data"), dict) else {}
        session = str(data.get("session") or "")
        p = payoff.get(session) or {}
        rows.append([_td(str(data.get("ended_at") or ep.get("updated_at") or "")[:16].replace("T", " ")),
                     _td(session), _td(str(ep.get("description") or ep["name"]).split(" — ", 1)[0]),
                     _td(data.get("outcome") if data.get("outcome_known", True) else ""),
                     _td(f"{p.get('used', 0)} / {p.get('injected', 0)}" if p else "", "num"),
                     _td(p.get("words", "") if p else "", "num")])
    return "<h2>Sessions</h2>" + _table(["when", "session", "goal", "outcome", "used / injected", "words shown"],
                                        rows, "No session consolidated yet.")


def injected(rows: list[dict[str, Any]]) -> str:
    sessions: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        sessions.setdefault(r["session_id"], []).append(r)
    out = ["<h2>What each session was shown</h2>"]
    if not sessions:
        out.append('<p class="meta">Nothing injected yet (or not consolidated yet).</p>')
    for session, shown in sessions.items():
        used = sum(1 for r in shown if r["used_seq"] is not None)
        out.append(f"<h3>{_e(session)}: {used} of {len(shown)} used</h3>")
        body = [[_td(r["via"]), _td(r["name"] or r["node_id"]),
                 (f'<td class="used">{_e(r["used_how"])} (event {_e(r["used_seq"])})</td>' if r["used_seq"] is not None
                  else f'<td class="unused">{_e(r["used_how"] or "not used")}</td>')] for r in shown]
        out.append(_table(["shown at", "item", "used"], body, ""))
    return "\n".join(out)


def ledger(use: dict[str, dict[str, dict[str, Any]]]) -> str:
    rows = []
    for window, label in (("today", "today"), ("last_7_days", "last 7 days"), ("all", "all time")):
        for provider, u in sorted((use.get(window) or {}).items()):
            cost = f"${u['cost_usd']:.4f}" if u.get("cost_usd") is not None else ""
            rows.append([_td(label), _td(provider), _td(u.get("calls", 0), "num"), _td(u.get("failed") or 0, "num"),
                         _td(f"{int(u.get('tokens') or 0):,}", "num"), _td(cost, "num")])
    return "<h2>Model calls (the token ledger)</h2>" + _table(
        ["window", "provider", "calls", "failed", "tokens", "cost reported"], rows,
        "No model call recorded: everything here was learnt offline.")


def page(project: dict[str, Any], items: list[dict[str, Any]], episodes: list[dict[str, Any]],
         sessions: list[dict[str, Any]], shown: list[dict[str, Any]], use: dict[str, Any], payoff_line: str,
         generated: str) -> str:
    """The whole page."""
    by_session = {s["session_id"]: s for s in sessions}
    parts = [f"<h1>engram memory: {_e(project['name'])}</h1>",
             f'<p class="meta">{_e(project["root"])} · generated {_e(generated)} · {len(items)} item(s)</p>',
             f'<p class="payoff">{_e(payoff_line)}</p>',
             knowledge(items), timeline(episodes, by_session), injected(shown), ledger(use)]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>engram memory: {_e(project['name'])}</title><style>{CSS}</style></head>"
            "<body>\n" + "\n".join(parts) + "\n</body></html>\n")
