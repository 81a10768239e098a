"""Knowledge a next session can act on, read off a session's events without a model.

`commandline` parses and normalises shell command lines; `commands` finds the project
commands that work and the gotchas (a failing command and what worked instead);
`unfinished` what a session left open; `instructions` what the user asked for in their
own words; `shell_files` the files its shell removed or moved. The offline consolidator turns their records into graph nodes
(docs/knowledge.md lists the kinds and what each path can and cannot infer).
"""
