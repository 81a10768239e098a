"""Policy-shaped readings (tests, markup, workflows, installs, secrets, switches kept on, what new
files carry, audit calls, generated files), in one place for the checker to register: each module
(test_policy, ...) brings its cues (the decision's words that switch a detector on), its
detectors, and which of them need the written file's path."""

from __future__ import annotations

from engram.monitor.readings.policies import (audit, generated, installs, markup, new_files, secrets, switches,
                                              test_policy, workflows)

_MODULES = (test_policy, markup, workflows, installs, secrets, switches, new_files, audit, generated)

CUES = {name: cue for m in _MODULES for name, cue in m.CUES.items()}
DETECTORS = {name: fn for m in _MODULES for name, fn in m.DETECTORS.items()}
PATH_DETECTORS = frozenset(name for m in _MODULES for name in m.PATH_DETECTORS)
