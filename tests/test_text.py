"""The user's own words of a prompt (`text.strip_injected`): what becomes a goal, a rule, a decision."""

from engram.text import AS_DATA, strip_injected


def test_an_ide_block_is_not_the_users_words():
    prompt = ("<ide_opened_file>The user opened the file /home/u/app/test/start.txt in the IDE. This may "
              "or may not be related to the current task.</ide_opened_file>\nCan we test the server with the CLI?")
    assert strip_injected(prompt) == "Can we test the server with the CLI?"


def test_an_ide_selection_goes_too_whatever_it_holds():
    prompt = "<ide_selection>def main():\n    run()</ide_selection>\nrename main to start"
    assert strip_injected(prompt) == "rename main to start"


def test_a_system_reminder_without_engrams_memory_stays():
    prompt = "<system-reminder>the user's own note</system-reminder> fix the build"
    assert strip_injected(prompt) == prompt.strip()


def test_engrams_memory_fed_back_is_dropped():
    prompt = f"<system-reminder>Project memory ({AS_DATA})</system-reminder>\nfix the build"
    assert strip_injected(prompt) == "fix the build"


def test_an_unclosed_block_is_left_as_typed():
    assert strip_injected("<ide_opened_file>half a block") == "<ide_opened_file>half a block"


def test_a_background_tasks_notification_is_not_the_users_words():
    note = "<task-notification>\n<task-id>ba85bee</task-id>\n<status>completed</status>\n</task-notification>"
    assert strip_injected(note) == ""
    assert strip_injected(note + "\nnow deploy it") == "now deploy it"


def test_inert_skips_only_text_with_nothing_to_map():
    """`inert` skips its translate for plain text: every character the table maps must fail the test."""
    from engram.text import _INERT, _plain, inert

    assert [c for c in _INERT if _plain(chr(c))] == []
    for c in _INERT:
        s = f"a{chr(c)}b"
        assert inert(s, 100) == s.translate(_INERT)
    assert inert("plain text, é and 漢字", 100) == "plain text, é and 漢字"


def test_bash_modes_output_is_not_the_users_words():
    prompt = "<bash-stdout>[entire] Pushing session logs to origin... main -> main</bash-stdout><bash-stderr></bash-stderr>"
    assert strip_injected(prompt) == ""
    assert strip_injected("<local-command-stdout>Compacted</local-command-stdout>\nnow fix the build") == "now fix the build"


def test_the_line_after_a_task_notification_is_the_harnesss():
    prompt = ("<task-notification>\n<task-id>bc1c6c5</task-id>\n<status>completed</status>\n</task-notification>\n"
              "Read the output file to retrieve the result: /private/tmp/claude-501/tasks/bc1c6c5.output")
    assert strip_injected(prompt) == ""
    assert strip_injected(prompt + "\nand then fix the lint") == "and then fix the lint"


def test_strip_ansi_leaves_what_a_coloured_tool_said():
    from engram.text import strip_ansi

    coloured = "\x1b[2m Test Files \x1b[22m \x1b[1m\x1b[31m1 failed\x1b[39m\x1b[22m\x1b[2m | \x1b[22m\x1b[32m20 passed\x1b[39m"
    assert strip_ansi(coloured) == " Test Files  1 failed | 20 passed"
    assert strip_ansi("see \x1b]8;;https://x.example\x07the docs\x1b]8;;\x1b\\ now") == "see the docs now"
    assert strip_ansi("\x1b(Bok \x1b[?25lhidden cursor") == "Bok hidden cursor"
    assert strip_ansi("cut at the end \x1b[") == "cut at the end " and strip_ansi("lone \x1b") == "lone "
    assert strip_ansi("an unended \x1b]0;title") == "an unended "
    assert strip_ansi("plain, é and 漢字") == "plain, é and 漢字"


def test_an_agent_running_apps_instructions_are_not_the_users_words():
    """Conductor opens a session's prompt with its own rules, in two spellings of one tag."""
    prompt = ("<system_instruction>\nYou are working inside Conductor. Use this branch for new PRs.\n"
              "</system_instruction>\n\n<system-instruction>\nUse `git branch -m` to rename the branch. Use the "
              "prefix \"KeKs0r/\".\n</system-instruction>\n\nwhy is this PR failing?")
    assert strip_injected(prompt) == "why is this PR failing?"


def test_a_teammates_message_is_not_the_users_words():
    prompt = '<teammate-message teammate_id="ui" color="blue" summary="plan">\n## Plan\n1. Use a bar chart\n</teammate-message>'
    assert strip_injected(prompt + "\nlooks good, go ahead") == "looks good, go ahead"
    assert strip_injected(prompt) == ""
