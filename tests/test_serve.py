"""`make serve` after an edit: the edited page shows the change, whether its prose or a snippet it includes changed."""

import subprocess
import time
import urllib.request

from tests.sitekit import mini_project
from tools.bench import _free_port
from tools.sandbox import build_env
from tools.serve import serve_command

GLOSSARY = "- en: [block, A fenced piece of code.]\n  es: [bloque, Un trozo de código.]\n"
PAGE = '# Home\n\nFirst words.\n\n```python exec="on" id="greet" result="text"\n--8<-- "greet.py"\n```\n'


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
        (project / "snippets" / "greet.py").write_text('print("goodbye from the block")\n')
        _wait_for(base, "goodbye from the block", server)  # a page whose snippet changed is rendered again
        _wait_for(base + "es/", "goodbye from the block", server)
        time.sleep(1.5)
        page = project / "docs" / "en" / "index.md"
        page.write_text(page.read_text().replace("First words.", "Edited words about a block."))
        html = _wait_for(base, "Edited words about a", server)
        assert '<abbr title="A fenced piece of code.">block</abbr>' in html  # the glossary still applies
        assert "goodbye from the block" in html
    finally:
        server.terminate()
        server.wait(timeout=30)
