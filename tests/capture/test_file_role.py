"""What a file is for, from its head: heading, docstring, first comment, package, definitions."""

from __future__ import annotations

import pytest

from engram.capture import file_role


@pytest.mark.parametrize("path,content,role", [
    ("README.md", "<!-- badge -->\n# Retry client\n\nRetries.", "Retry client"),
    ("src/retry.py", '#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n"""HTTP retries with backoff.\n\nMore."""\n',
     "HTTP retries with backoff."),
    ("src/a.ts", "// Copyright 2026 ACME\n// SPDX-License-Identifier: MIT\n/**\n * Notes tools for companies\n */\n",
     "Notes tools for companies"),
    ("cmd/main.go", "package main\n\nfunc main() {}\n", "package main"),
    ("src/calc.py", "import os\n\nclass Calc:\n    pass\n\ndef add(a, b):\n    return a + b\n", "defines Calc, add()"),
    ("src/empty.py", "", ""),
    ("data.json", '{"a": 1}', ""),
    # Xcode's header names the file, the project and its author; Swift's MARK opens a section
    ("App/LeagueTierBadge.swift", "//\n//  LeagueTierBadge.swift\n//  FitToday\n//\n//  Created by V on 1/1/26.\n//\n\n"
     "import SwiftUI\n\n// MARK: - Color Hex Init\nstruct LeagueTierBadge: View {}\n", "defines LeagueTierBadge"),
    ("App/Repo.swift", "// MARK: - TrainerStudentRepository\nstruct Repo {}\n", "defines Repo"),
])
def test_role(path, content, role):
    assert file_role.role(path, content) == role


def test_a_long_role_is_cut_at_a_word():
    role = file_role.role("a.py", '"""' + "word " * 100 + '"""')
    assert len(role) <= file_role.MAX_ROLE and role.endswith("word…")


@pytest.mark.parametrize("line,sig", [
    ("func shellCompletionTarget() (shellName, rcFile, completionLine string, err error) {",
     "func shellCompletionTarget() (shellName, rcFile, completionLine string, err error)"),
    ("def parse(text: str) -> Node:", "def parse(text: str) -> Node"),
    ("export async function load(url: string) {", "export async function load(url: string)"),
    ("    def method(self):", ""),  # not top level
    ("x = parse(text)", ""),
])
def test_a_definitions_line_is_its_signature(line, sig):
    assert file_role.signature(line) == sig
