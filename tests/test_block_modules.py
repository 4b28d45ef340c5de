"""A block's globals are a real module's: registered while its session lives, gone when its page ends."""

from __future__ import annotations

import linecache
import sys

from hood.engine.engine import Block, Engine, module_name
from hood.engine.settings import Settings

DEFINE = '''
import torch
import torch.nn.functional as F

SCALE = 3.0

@torch.compile(backend="eager", fullgraph=True)
def scaled_relu(x):
    return F.relu(x) * SCALE

print(scaled_relu(torch.tensor([-1.0, 2.0])).tolist())
'''

USE = '''
import sys
module = sys.modules[__name__]
print(module.__name__ == __name__, module.SCALE, module.F.__name__, module.scaled_relu is scaled_relu)
print(scaled_relu(torch.tensor([4.0, -5.0])).tolist())
'''


def _engine(tmp_path) -> Engine:
    return Engine(Settings(root=tmp_path, use_cache=False), "fp-modules")


def test_a_session_block_defines_names_a_later_block_reads_through_its_module(tmp_path):
    engine = _engine(tmp_path)
    define = Block("page.md", "define", DEFINE, "s")
    first = engine.run(define)
    assert first.error is None, first.error
    assert first.output == "[0.0, 6.0]\n"
    second = engine.run(Block("page.md", "use", USE, "s"))
    assert second.error is None, second.error
    assert second.output == "True 3.0 torch.nn.functional True\n[12.0, 0.0]\n"
    assert module_name(define) in sys.modules
    engine.end_page("page.md")
    assert module_name(define) not in sys.modules


def test_a_replayed_session_runs_in_a_fresh_module(tmp_path):
    engine = _engine(tmp_path)
    engine.run(Block("page.md", "define", DEFINE, "s"))
    engine.begin_page("page.md")  # the next language renders the page again
    engine.memo.clear()  # force a real run of the later block: the earlier one is replayed first
    outcome = engine.run(Block("page.md", "define", DEFINE, "s"))
    outcome = engine.run(Block("page.md", "use", USE, "s"))
    assert outcome.error is None, outcome.error
    assert outcome.output.startswith("True 3.0")
    engine.close()
    assert not [name for name in sys.modules if name.startswith("hood_block_page_md")]


def test_a_block_without_session_leaves_no_module_behind(tmp_path):
    engine = _engine(tmp_path)
    block = Block("page.md", "alone", "import sys\nprint(sys.modules[__name__].__name__ == __name__)\n")
    assert engine.run(block).output == "True\n"
    assert module_name(block) not in sys.modules


RAISE_IN_HELPER = '''
def helper():
    return {"a": 1}["missing key"]
'''

CALL_HELPER = '''
import inspect
print(inspect.getsourcefile(helper), inspect.getsource(helper).splitlines()[0])
helper()
'''


def test_a_block_has_a_source_like_a_file_so_tracebacks_and_inspect_show_its_lines(tmp_path):
    """torch 2.12 compiles a function without a source file through a shared wrapper: blocks must have one."""
    engine = _engine(tmp_path)
    define = Block("page.md", "define", RAISE_IN_HELPER, "s")
    engine.run(define)
    engine.begin_page("page.md")  # the next language: `define` comes from the memo ...
    engine.run(define)
    outcome = engine.run(Block("page.md", "call", CALL_HELPER, "s"))  # ... and is replayed under its own name
    assert outcome.output == "<page.md#define> def helper():\n"
    assert 'File "<page.md#define>", line 3, in helper' in outcome.error
    assert 'return {"a": 1}["missing key"]' in outcome.error
    assert 'File "<page.md#call>", line 4' in outcome.error
    engine.end_page("page.md")
    assert "<page.md#define>" not in linecache.cache
