"""The one registry of the offline checker's rules: every family module, in the order its matches
are reported (the path first, then the decision's terms, then what reads code shapes, then what a
change takes away). docs/monitoring.md's table of it is written by `bench/rule_catalogue.py --write`."""

from __future__ import annotations

from engram.monitor import constructs, detectors, manifests, practices
from engram.monitor.readings import data_access, imports, lint_rules, protected_paths
from engram.monitor.readings.policies import secrets, switches, workflows
from engram.monitor.rules import Rule, terms

FAMILIES = (protected_paths, data_access, terms, imports, detectors, constructs, manifests, lint_rules, switches,
            workflows, secrets, practices)
RULES: tuple[Rule, ...] = tuple(rule for family in FAMILIES for rule in family.RULES)
BY_ID = {rule.id: rule for rule in RULES}


def family_of(rule: Rule) -> str:
    """The family a rule belongs to: the last part of its module's name."""
    return next(f.__name__.rsplit(".", 1)[-1] for f in FAMILIES if rule in f.RULES)


def cued(text: str) -> list[str]:
    """The ids of the rules a decision's words switch on (those with a cue of their own)."""
    return [rule.id for rule in RULES if rule.cue is not None and rule.cued(text)]
