"""`make serve` after an edit: the edited page shows the change, whether its prose or a snippet it includes changed."""

import json
import re
import subprocess
import time
import urllib.request

from hood.engine.translations import mark
from tests.sitekit import mini_project
from tools.bench import _free_port
from tools.sandbox import build_env
from tools.serve import serve_command

GLOSSARY = "- en: [block, A fenced piece of code.]\n  es: [bloque, Un trozo de código.]\n"
PAGE = ('# Home\n\nFirst words.\n\n```python exec="on" id="greet" result="text"\n--8<-- "greet.py"\n```\n\n'
        '```python exec="on" id="count" result="text"\nprint(sum(range(4)))\n```\n')


def _get(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.read().decode()
    except OSError:
        return ""


def _wait_for(url: str, text: str, server: subprocess.Popen, seconds: float = 180) -> str:
    deadline = time.monotonic() + seconds
    while text not in (html := _get(url)):
        assert server.poll() is None, "mkdocs serve stopped"
        assert time.monotonic() < deadline, f"{text!r} never showed at {url}"
        time.sleep(0.2)
    return html


def test_a_served_page_follows_edits_of_its_prose_and_of_the_snippets_it_includes(tmp_path):
    project = mini_project(tmp_path / "mini", PAGE, snippets={"greet.py": 'print("hello from the block")\n'})
    (project / "glossary.yml").write_text(GLOSSARY)
    port = _free_port()
    base = f"http://127.0.0.1:{port}/"
    server = subprocess.Popen(serve_command(project, f"127.0.0.1:{port}"), cwd=project,
                              env=build_env(project, mode="lenient", cache=True),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for(base, "hello from the block", server)
        _wait_for(base + "es/", "hello from the block", server)
        time.sleep(1.5)
        log = project / "exec.log"
        executed = len(log.read_text().splitlines())
        (project / "snippets" / "greet.py").write_text('print("goodbye from the block")\n')
        _wait_for(base, "goodbye from the block", server)  # a page whose snippet changed is rendered again
        _wait_for(base + "es/", "goodbye from the block", server)
        assert [line.split("\t")[1:3] for line in log.read_text().splitlines()[executed:]] == [["index.md", "greet"]]
        time.sleep(1.5)
        executed = len(log.read_text().splitlines())
        page = project / "docs" / "en" / "index.md"
        page.write_text(page.read_text().replace("First words.", "Edited words about a block."))
        html = _wait_for(base, "Edited words about a", server)
        assert '<abbr title="A fenced piece of code.">block</abbr>' in html  # the glossary still applies
        assert "goodbye from the block" in html
        assert len(log.read_text().splitlines()) == executed  # prose only: no block runs
    finally:
        server.terminate()
        server.wait(timeout=30)


STAMP = ('# {title}\n\n{words}\n\n```python exec="on" id="stamp" result="text"\n'
         'import time\nprint("rendered at", time.time_ns())\n```\n')


def _stamp(html: str) -> str:
    return re.search(r"rendered at \d+", html)[0]


def _index_texts(base: str, server: subprocess.Popen) -> dict[str, str]:
    index = json.loads(_wait_for(base + "search/search_index.json", '"docs"', server))
    return {doc["location"]: doc["text"] for doc in index["docs"]}


def test_a_prose_edit_renders_that_page_again_and_leaves_the_others_and_the_search_index_whole(tmp_path):
    """Without the authoring cache every render runs its page's block again, which prints the time: a page that
    is rendered again shows a new time."""
    project = mini_project(tmp_path / "mini", STAMP.format(title="Home", words="Words of the home page."))
    (project / "glossary.yml").write_text(GLOSSARY)
    config = project / "mkdocs.yml"
    config.write_text(config.read_text().replace("- Home: index.md\n", "- Home: index.md\n- Other: other.md\n"))
    other = STAMP.format(title="Other", words="Words about the dispatcher.")
    (project / "docs" / "en" / "other.md").write_text(other)
    (project / "docs" / "es" / "other.md").write_text(mark(other, other))
    port = _free_port()
    base = f"http://127.0.0.1:{port}/"
    server = subprocess.Popen(serve_command(project, f"127.0.0.1:{port}"), cwd=project,
                              env=build_env(project, mode="lenient", cache=False),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        pages = ("", "other/", "es/", "es/other/")
        before = {url: _stamp(_wait_for(base + url, "rendered at", server)) for url in pages}
        assert _index_texts(base, server)["other/"].startswith("Words about the dispatcher.")
        time.sleep(1.5)
        page = project / "docs" / "en" / "index.md"
        page.write_text(page.read_text().replace("Words of the home page.", "Edited words about autograd."))
        _wait_for(base, "Edited words about autograd.", server)
        for url in ("other/", "es/", "es/other/"):  # not rendered again: the same time
            assert _stamp(_get(base + url)) == before[url], url
        texts = _index_texts(base, server)
        assert texts[""].startswith("Edited words about autograd.")  # the edited page is searched as it is now
        assert texts["other/"].startswith("Words about the dispatcher.")  # the others are still searched
        assert set(texts) == set(_index_texts(base + "es/", server)) == {"", "other/"}
    finally:
        server.terminate()
        server.wait(timeout=30)
