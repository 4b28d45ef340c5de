"""The one reader of fences and include lines that the engine, the downloads, the tools and the tests share."""

from __future__ import annotations

from hood.engine.markdown_source import executed_fences, fences, include_target, without_front_matter

PAGE = '''---
translated_from: abc
---
# Title

```python exec="on" id="one" session='s'
print(1)
```

??? example "A box"

    ````python exec="1" id="two"
    print("```")
    ````

~~~text
```python exec="on" id="not-a-block"
~~~

```py
shown only
```
'''


def test_a_fence_ends_at_a_closing_run_as_long_as_its_opening_and_of_the_same_character():
    found = fences(without_front_matter(PAGE).split("\n"))
    assert [(f.language, f.options.get("id")) for f in found] == [
        ("python", "one"), ("python", "two"), ("text", None), ("py", None)]
    assert found[1].indent == "    " and found[1].body == 'print("```")\n'
    assert found[2].lines == ['```python exec="on" id="not-a-block"']


def test_only_python_fences_with_exec_on_are_executed_whatever_their_quotes():
    executed = executed_fences(PAGE)
    assert [(f.options["id"], f.options.get("session")) for f in executed] == [("one", "s"), ("two", None)]


def test_an_include_line_gives_its_path_and_section_in_either_quote():
    assert include_target('--8<-- "hood/capture/collectives.py:body"') == ("hood/capture/collectives.py", "body")
    assert include_target("    --8<-- 'lab03/survey_en.md'") == ("lab03/survey_en.md", None)
    assert include_target('print("--8<--")') is None
    assert include_target('--8<-- "a.py\'') is None  # quotes must match


def test_front_matter_is_removed_only_at_the_start():
    assert without_front_matter(PAGE).startswith("# Title")
    assert without_front_matter("# T\n---\nx: 1\n---\n") == "# T\n---\nx: 1\n---\n"
