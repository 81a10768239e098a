"""`engram eval`: does memory help on real history, and with which settings?

The pieces, each small and usable alone (transcripts -> sessions by project, and their
replay through the hooks, are engram.history's):

* `sandbox`    a temporary ENGRAM_HOME with given settings, the process left as it was found;
* `outcomes`   what a session did (files read and written, tests run, errors hit) and
               what a graph node is about, as comparable keys;
* `recorder`   what retrieval showed (SessionStart, prompts, first reads), per variant:
               engram's spreading activation, BM25, recency-only, no memory;
* `scoring`    recall / precision of what was shown against what the session then did;
* `questions`  MRR of `query_knowledge` on questions made from the later sessions' prompts;
* `engine`     the paired replay: each variant sees each session against the same graph;
* `latency`    hook latency percentiles, in process and as real subprocesses;
* `chains`     the supersession check (decisions replaced, single- and multi-hop);
* `sweep`      the sensitivity analysis over the retrieval and consolidation parameters;
* `report`, `plots`  Markdown + JSON (+ PNG when matplotlib is installed);
* `run`        what `engram eval` runs, end to end.

Everything runs in process with the offline consolidator by default (no network); the
hooks are the real ones (`engram.hook.run`, through engram.history.replay), and consolidation is called synchronously
after each session instead of in a detached worker (ENGRAM_NO_WORKER=1).
"""
