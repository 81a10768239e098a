"""What the user said: prompts cleaned for titles, and their instructions in their own words.

* `clean_prompt`: links shortened to what they name ("https://github.com/o/r/issues/364"
  -> "issue #364", a pull request -> "PR #N", any other link -> its host), terminal box
  characters dropped, whitespace squashed.
* `substantive`: a prompt that says what to do, not "continue" / "yes" / "ok merge";
  `bare`: what is left of one that does not, without the mentions and the filler.
* `instructions`: corrective or imperative sentences ("don't …", "never …", "make sure to …",
  also in Spanish, Portuguese, German, French, Russian, Ukrainian, Japanese and Chinese,
  "why are you editing …", "use X instead of Y"). A sentence phrased as a rule (always,
  never, don't, must) is explicit; the others keep the implicit band until repeated.
  Sentences decision_text already reads as decisions are left to it.
* The subagents the user named (`@agent-x`, Claude Code's mention syntax): a sentence that
  names one is split at its clauses and each clause without the mention is judged as above
  ("make use of @agent-x and make sure to use branching appropriately" keeps its second
  half). A mention alone is a standing instruction ("Use @agent-x") only when its clause is
  phrased as a rule ("always use @agent-x for reviews") or when an earlier session named the
  same subagent (`earlier`, what the graph holds); otherwise it is a `mention`: recorded,
  not shown, and an instruction once a later session names it again. "continue with the
  @agent-x" or a bare "@agent-x" is a one-off delegation, not a rule.
"""

from __future__ import annotations

import re
from typing import Any

from engram.language import decision_text
from engram.text import cjk_count, clip_words, strip_injected

_LINK = re.compile(r"https?://(?:www\.)?github\.com/[^\s/]+/[^\s/]+/(issues|pull)/(\d+)\S*|https?://([^\s/]+)\S*")
_BOX = re.compile(r"[\u2500-\u257f\u2580-\u259f]+")
_FILLER = {"ok", "okay", "yes", "yeah", "yep", "sure", "continue", "go", "on", "ahead", "proceed", "please", "pls",
           "alright", "alrigh", "so", "then", "now", "lets", "let's", "do", "it", "that", "this", "and", "the", "with",
           "merge", "thanks", "great", "good", "fine", "next", "again", "more", "same"}
_AGENT = re.compile(r"@agent-[\w.-]+\w")
_RULE = re.compile(r"^(?:(?:ok(?:ay)?|no|so|and|but|also|please|pls)[,!.]?\s+)*"
                   r"(?:don'?t|do not|never|always|stop|avoid|must|make sure|remember to|"
                   r"you (?:should|must|need to|have to)|no need to|only|keep|"
                   r"why (?:on earth )?(?:are|did|do(?! you (?:think|believe|suppose|say|mean|see))|would) you|"
                   r"i (?:never|didn'?t) (?:ask|want)|i (?:told|asked) you|from now on|next time|going forward|"
                   r"in (?:the )?future|use\b|prefer|"
                   # the same openers in Spanish and Portuguese (the corpus's dev projects hold both)
                   r"nunca|siempre|sempre|evit[ae]|asegu?r[aá]te de|certifique-se|lembre(?:-se)? (?:de|que)|"
                   r"lembrando que|recuerd[ae] (?:que|de)|a partir de (?:ahora|agora)|de ahora en adelante|"
                   r"daqui (?:pra|para) frente|(?:yo|eu) nunca te ped[ií]|"
                   r"no (?:vuelvas a|toques|uses|hagas|crees|modifiques|edites|borres)|"
                   r"n[aã]o (?:use|fa[cç]a|crie|altere|mexa|toque|edite|apague|mude)|"
                   # German, French, Russian and Ukrainian ("immer noch" and "toujours" also say "still")
                   r"niemals|immer(?! noch)|nie|stelle? sicher|achte darauf|ab jetzt|in zukunft|k[uü]nftig|"
                   r"(?:verwende|benutze|nutze) (?:kein\w*|nie)|"
                   r"jamais|assure-toi|veille à|à l'avenir|désormais|dorénavant|"
                   r"n'(?:utilise|ajoute|écris) (?:pas|jamais)|ne (?:touche|modifie|supprime|crée|fais|change) (?:pas|jamais)|"
                   r"никогда|всегда|обязательно|впредь|в дальнейшем|с этого момента|убедись|запомни|"
                   r"не (?:используй|делай|трогай|меняй|создавай|удаляй|пиши|добавляй|коммить|пушь)|"
                   r"ніколи|завжди|обов'язково|надалі|переконайся|запам'ятай|"
                   r"не (?:використовуй|роби|чіпай|змінюй|створюй|видаляй|пиши|додавай))\b", re.I)
# Japanese puts the verb last: a rule is marked anywhere in the sentence ("必ず…", "…しないで",
# "今後は…"); "…ようにして" and "…べき" ask for one change as often as for a rule, and "常に" also
# describes ("常に 0 になっている": it is always 0).
_RULE_JA = re.compile(r"必ず|絶対|禁止|しないで|しないこと|使わないで|ないでください|今後|以後")
# Chinese marks a rule the same way ("必须…", "不要…", "以后…"); "不要" in Japanese says "not
# needed", so a sentence with kana is read as Japanese.
_RULE_ZH = re.compile(r"必须|务必|一定要|不要|别再|禁止|永远不要|总是|以后|今后")
# A requirement stated of the work, not of one step: a modal whose subject is everything ("Everything
# has to be touch friendly") or that sets one place against another ("This filter should be in the
# context, not in the view"). A modal alone ("the modal should close") is a task's spec.
_MODAL = re.compile(r"\b(?:should|must|has to|have to|needs to|need to|"
                    r"deve|devem|debe|deben|deber[ií]a|t[eê]m que|tiene que|tienen que|ten[eé]s que|hay que|"
                    r"precisa|precisam|muss|müssen|sollte|sollten|doit|doivent|il faut|"
                    r"должен|должна|должно|должны|нужно|надо|повинен|повинна|повинні|потрібно|треба)\b", re.I)
_UNIVERSAL = re.compile(r"^(?:(?:again|also|and|so|e|y|und|et|и|і)[,]?\s+)*(?:everything|all|every|each|any|"
                        r"tod[oa]s?|cada|qualquer|cualquier|alle|jede[rsn]?|tout|tous|toutes|chaque|"
                        r"все|всё|каждый|каждая|каждое|всі|усі|кожен|кожна|кожне)\b", re.I)
_CONTRAST = re.compile(r"(?:,\s*|\s+and\s+)not\b|\b(?:instead of|rather than)\b", re.I)
_RULE_WORDS = re.compile(r"\b(?:always|never|don'?t|do not|must|stop|next time|from now on|going forward|"
                         r"nunca|siempre|sempre|niemals|immer(?! noch)|jamais|никогда|всегда|ніколи|завжди)\b|"
                         r"必ず|絶対|禁止|必须|永远|不要", re.I)
_KANA = re.compile(r"[\u3040-\u30ff]")
# A clause naming a subagent is a rule when it says so ("always use @agent-x for reviews").
_STANDING = re.compile(r"\b(?:always|never|don'?t|do not|must|make sure|remember to|from now on|whenever|"
                       r"every time|next time|going forward)\b", re.I)
_CLAUSE = re.compile(r"[,;]\s+|(?<!\s)\s+(?:and|then)\s+", re.I)
_ADDRESSED = re.compile(r"^(?:(?:ok(?:ay)?|so|also|please|pls)[,!.]?\s+)*(?:@agent-[\w.-]+\w[\s,:]*)+", re.I)
MAX_INSTRUCTIONS = 8
# A fenced block a prompt pastes (a log, a diff) is data, not the user's words; so is the
# sentence that hands it over ("Use the recent conversation from `.specstory` as context:"),
# from the last sentence end (a mark and a space, or a line's end) before its colon.
_FENCED = re.compile(r"(?:(?:(?<=[.!?]\s)|(?<=\n)|^)(?:[^\n.!?]|[.!?](?!\s))*:\s*)?```.*?(?:```|$)", re.S)


def _link(m: re.Match) -> str:
    if m.group(1):
        return ("issue #" if m.group(1) == "issues" else "PR #") + m.group(2)
    return m.group(3)


_DOC_LABELS = {"plan", "implementation plan", "task", "spec", "prd", "proposal"}


def headline(text: Any) -> str:
    """A prompt that hands over a document ("Implement the following plan:" then "# Plan: X")
    is about the document's first heading ("X"); "" for any other prompt."""
    lines = [ln.strip() for ln in strip_injected(str(text or "")).split("\n") if ln.strip()][:6]
    if len(lines) < 2 or not lines[0].endswith(":") or len(lines[0]) > 120:
        return ""
    heading = next((ln.lstrip("#").strip() for ln in lines[1:] if ln.startswith("#")), "")
    head, _, rest = heading.partition(":")
    return rest.strip() if rest.strip() and head.strip().casefold() in _DOC_LABELS else heading


def clean_prompt(text: Any) -> str:
    """A prompt on one line, links shortened, without context a harness fed back into it
    (events recorded before the hook stripped it)."""
    return " ".join(_BOX.sub(" ", _LINK.sub(_link, strip_injected(str(text or "")))).split())


def substantive(text: Any) -> bool:
    words = [w.strip(".,!?:;'\"") for w in clean_prompt(text).lower().split()]
    content = [w for w in words if w and w not in _FILLER and not w.startswith("@")]
    return len(content) >= 3


def bare(text: Any) -> str:
    """A prompt without its subagent mentions and the "continue" / "ok" words around what it
    asks ("continue with the @agent-x on the flaky test" -> "flaky test"); "" when nothing is left."""
    words = _AGENT.sub(" ", clean_prompt(text)).split()
    while words and words[0].strip(".,!?:;'\"").lower() in _FILLER:
        words.pop(0)
    while words and words[-1].strip(".,!?:;'\"").lower() in _FILLER:
        words.pop()
    return " ".join(words)


def _clauses(sentence: str) -> list[str]:
    return [c.strip(" ,;") for c in _CLAUSE.split(sentence) if c.strip(" ,;")]


def _requirement(s: str) -> bool:
    m = _MODAL.search(s)
    if m is None or len(s[: m.start()].split()) > 8:
        return False
    return bool(_UNIVERSAL.match(s) or _CONTRAST.search(s, m.end()))


_REPROACH = re.compile(r"^(?:\W*\w+[,!.]?\s+){0,2}?why\b", re.I)


def _rule(s: str) -> bool:
    """A sentence phrased as a standing instruction (_RULE's openers, or a requirement of the
    work). A question asks, it does not rule ("from now on will it link each commit?"), unless
    it reproaches ("why did you reformat every file?")."""
    if s.rstrip().endswith(("?", "\uff1f")) and not _REPROACH.match(s):
        return False
    if cjk_count(s) >= 6:
        return bool((_RULE_JA if _KANA.search(s) else _RULE_ZH).search(s))
    return bool(_RULE.match(s) or _requirement(s)) and len(s.split()) >= 3


def _instruction(ev: dict[str, Any], s: str) -> dict[str, Any]:
    return {"name": clip_words(s, 80), "text": clip_words(s, 300), "explicit": bool(_RULE_WORDS.search(s)),
            "agent": False, "kind": "instruction", "evidence": [ev["seq"]]}


def _agent(ev: dict[str, Any], name: str, clause: str, sentence: str, earlier: set[str]) -> dict[str, Any]:
    """A named subagent: an instruction when the clause it is the object of is phrased as a rule
    ("" for an agent addressed), or when an earlier session named it."""
    rule = bool(_STANDING.search(clause))
    kind = "instruction" if rule or name.casefold() in earlier else "mention"
    return {"name": name, "text": clip_words(sentence, 200), "explicit": rule, "agent": True, "kind": kind,
            "evidence": [ev["seq"]]}


def _sentence_items(ev: dict[str, Any], s: str, taken: set[str], earlier: set[str],
                    whole: str = "") -> list[dict[str, Any]]:
    """The instructions of one sentence (`whole`: it with the sentence its pronoun points back
    to, when it does); one naming a subagent is judged clause by clause."""
    if not _AGENT.search(s):
        ok = s not in taken and (whole or s) not in taken and _rule(s)
        return [_instruction(ev, whole or s)] if ok else []
    out = []
    for clause in _clauses(s):
        rest = _ADDRESSED.sub("", clause)  # "@agent-x make sure to …": the agent addressed, then a rule for it
        addressed = _AGENT.findall(clause[: len(clause) - len(rest)])
        out += [_agent(ev, n, "", s, earlier) for n in addressed]
        out += [_agent(ev, n, rest, s, earlier) for n in _AGENT.findall(rest)]
        if not _AGENT.search(rest) and rest not in taken and _rule(rest):
            out.append(_instruction(ev, rest))
    return out


_RANK = {"mention": 0, "instruction": 1}


def agents_named(events: list[dict[str, Any]]) -> set[str]:
    """The subagents (casefolded) the user's prompts among `events` named."""
    return {n.casefold() for e in events if e.get("type") == "user_prompt"
            for n in _AGENT.findall(str(e.get("prompt") or ""))}


def instructions(events: list[dict[str, Any]], earlier: set[str] = frozenset()) -> list[dict[str, Any]]:
    """[{"name", "text", "explicit", "agent", "kind", "evidence"}] from the user's prompts;
    `earlier`: the subagent names (casefolded) earlier sessions recorded."""
    out: dict[str, dict[str, Any]] = {}
    for ev in events:
        if ev.get("type") != "user_prompt" or headline(ev.get("prompt")):
            continue  # a document handed over ("Implement the following plan:"): its steps are a task, not rules
        text = clean_prompt(_FENCED.sub(" ", str(ev.get("prompt") or "")))
        taken = {d["text"] for d in decision_text.decision_sentences(str(ev.get("prompt") or ""))}
        said = [x.strip() for x in decision_text.sentences(text)]
        for i, s in enumerate(said):
            for item in _sentence_items(ev, s, taken, earlier, decision_text.with_antecedent(said, i)):
                key = item["name"].casefold() if item["agent"] else " ".join(item["name"].casefold().split())
                old = out.get(key)
                if old is None or (_RANK[item["kind"]], item["explicit"]) > (_RANK[old["kind"]], old["explicit"]):
                    out[key] = item
    ranked = sorted(out.values(), key=lambda i: i["kind"] == "mention")  # instructions first, in order
    return ranked[:MAX_INSTRUCTIONS]
