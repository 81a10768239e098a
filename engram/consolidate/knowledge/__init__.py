"""Knowledge a next session can act on, read off a session's events without a model.

`commands` finds the project commands that work and the gotchas (a failing command and
what worked instead), reading command lines with `engram.capture.commandline`;
`unfinished` what a session left open; `user_words` what the user asked for in their own
words; `shell_files` the files its shell removed or moved. The offline consolidator turns
their records into graph nodes
(docs/knowledge.md lists the kinds and what each path can and cannot infer).
"""
